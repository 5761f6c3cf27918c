import { saveSession, type SessionUser } from '../lib/session';

export const ORG_ID = '65f0000000000000000000aa';

export function signIn(user: Partial<SessionUser> = {}, expiresIn = 3600): SessionUser {
  const u: SessionUser = { id: '65f0000000000000000000u1', fullName: 'Ada Lovelace', email: 'ada@example.com', role: 'user', organization_id: ORG_ID, dashboards: [], ...user };
  saveSession('test-token', expiresIn, u);
  return u;
}

import bcrypt from 'bcryptjs';
import { Router } from 'express';
import { z } from 'zod';
import { publicUser, User, type UserDoc } from '../../common/models/user';
import type { AppDeps } from '../deps';
import { signToken } from '../lib/auth';
import { unauthorized } from '../lib/errors';
import { ok } from '../lib/respond';
import { validate } from '../lib/validate';

const loginBody = z.object({
  email: z.string({ required_error: 'Email is required' }).trim().toLowerCase().min(1, 'Email is required').max(254),
  password: z.string({ required_error: 'Password is required' }).min(1, 'Password is required').max(128),
});

// Compared against when the email is unknown, so both failures take the same time.
const DUMMY_HASH = bcrypt.hashSync('not-a-real-password', 12);

export function authRouter(deps: AppDeps): Router {
  const router = Router();
  router.post('/login', validate({ body: loginBody }), async (req, res) => {
    const { email, password } = req.body as z.infer<typeof loginBody>;
    const user = await User.findOne({ email }).select('+passwordHash').lean<UserDoc>();
    const matches = await bcrypt.compare(password, user?.passwordHash ?? DUMMY_HASH);
    if (!user || !matches) throw unauthorized('Invalid email or password');
    ok(res, 'Login successful', { user: publicUser(user), expiresIn: deps.config.JWT_EXPIRES_IN, token: signToken(user, deps.config) });
  });
  return router;
}

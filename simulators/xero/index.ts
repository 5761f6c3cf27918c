// The Xero simulator: a local Xero speaking its wire format. Its jobs, a file each: the identity
// server (auth.ts: consent, tokens with rotation, revocation), the seeded organisations
// (books.ts), the accounting API's answers (reports.ts) and the HTTP server with limits,
// injected 429s and signed webhooks (server.ts).
export { ACCESS_TOKEN_SECONDS, REFRESH_GRACE_MS, REFRESH_IDLE_MS } from './auth';
export { XeroOrganisation, guid, lastDay, monthsBefore, seededOrganisations, type XeroAccountDef } from './books';
export { FakeXero, type FakeXeroOptions, type XeroCall } from './server';

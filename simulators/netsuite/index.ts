// The NetSuite simulator: one local NetSuite account speaking NetSuite's REST wire format. Its
// jobs, a file each: OAuth 2.0 client credentials (auth.ts), the SuiteQL interpreter
// (suiteql.ts), the seeded company (books.ts) and the HTTP server with fault injection (server.ts).
export { generateNetSuiteKey } from './auth';
export { ACCOUNTS, CURRENCIES, SUBSIDIARIES, centsText, lastMonths, type ExpectedTrialBalanceRow } from './books';
export { FakeNetSuite, ROW_CAP, type FakeNetSuiteOptions, type FakeRequest, type Injected, type Kind } from './server';

// What scripts/bench-api.mjs takes from the product's TypeScript, in one module: tsx loads each
// tsImport apart (its own copy of every module it reaches), and the mongoose models may be
// compiled once only.
export { loadConfig } from '../../common/config';
export { hashPassword, OWASP_ARGON2ID, verifyPassword } from '../../common/passwords';
export { openOrgConnection } from '../../warehouse/connection';
export { closeRunStores, RunStore, withRequiredRunStore } from '../../warehouse/records/run-store';

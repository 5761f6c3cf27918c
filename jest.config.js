/** @type {import('jest').Config} */
const swc = ['@swc/jest', { jsc: { parser: { syntax: 'typescript', tsx: true }, transform: { react: { runtime: 'automatic' } }, target: 'es2022' }, module: { type: 'commonjs' } }];

module.exports = {
  // Generous: a busy machine (CI shared with other work) can make a worker-kill or sync test take minutes.
  testTimeout: 300000,
  projects: [
    {
      displayName: 'server',
      testEnvironment: 'node',
      roots: ['<rootDir>/test', '<rootDir>/api', '<rootDir>/activities', '<rootDir>/warehouse', '<rootDir>/workflows', '<rootDir>/common'],
      testMatch: ['**/*.test.ts'],
      transform: { '^.+\\.tsx?$': swc },
    },
    {
      displayName: 'web',
      testEnvironment: 'jsdom',
      roots: ['<rootDir>/web/src'],
      testMatch: ['**/*.test.tsx', '**/*.test.ts'],
      transform: { '^.+\\.tsx?$': swc },
      moduleNameMapper: { '\\.(css|less|scss)$': 'identity-obj-proxy' },
      setupFilesAfterEnv: ['<rootDir>/web/src/test/setup.ts'],
    },
  ],
};

/** Jest runs TypeScript through ts-jest in transpile-only mode; `npm run typecheck` does the type checking once. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
  testTimeout: 60000,
  maxWorkers: 2,
};

/** Jest runs TypeScript through ts-jest in transpile-only mode; `npm run typecheck` does the type checking once. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  // test/real runs against real OpenBao, once and alone (jest.real.config.js, npm run test:real).
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/real/'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { diagnostics: false }],
    // jose ships ES modules only; Node loads them natively, Jest's CommonJS runtime needs them transpiled.
    '/node_modules/jose/.+\\.js$': ['ts-jest', { diagnostics: false, tsconfig: { allowJs: true, module: 'commonjs' } }],
  },
  transformIgnorePatterns: ['/node_modules/(?!jose/)'],
  setupFiles: ['<rootDir>/test/support/jest-env.ts'],
  testTimeout: 60000,
  maxWorkers: 2,
};

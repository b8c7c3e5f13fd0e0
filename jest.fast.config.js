/**
 * `npm run test:fast`: every test under test/unit (the decision-parity tier included), in-process
 * only. test/support/unit-guard.ts fails a test that starts a process or opens a socket; those
 * belong in test/integration. Timed by bench/test-fast.ts, not by a test.
 */
const base = require('./jest.config.js');

module.exports = {
  ...base,
  roots: ['<rootDir>/test/unit'],
  setupFiles: [...base.setupFiles, '<rootDir>/test/support/unit-guard.ts'],
};

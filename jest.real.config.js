/**
 * The suites against real servers (test/real: OpenBao with the GCP plugin, raft clusters), run once, one file at a
 * time: raft elections on 2 cores do not share the machine well. `npm run test:real`; npm test runs it after the
 * main suite.
 */
const base = require('./jest.config.js');

module.exports = {
  ...base,
  testPathIgnorePatterns: ['/node_modules/'],
  roots: ['<rootDir>/test/real'],
  testTimeout: 180000,
  maxWorkers: 1,
};

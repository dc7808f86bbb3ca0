// swc instead of ts-jest: Nest 12 ships ESM-only packages that Jest on Node 20 cannot require(),
// so @nestjs/* is transformed to CommonJS as well. swc does not type-check: `npm test` runs tsc first.
const swc = require('./swc.config');

module.exports = {
  moduleFileExtensions: ['js', 'json', 'ts'],
  rootDir: '.',
  roots: ['<rootDir>/libs/', '<rootDir>/apps/', '<rootDir>/test/'],
  testRegex: '.*\\.(spec|integration-spec|e2e-spec)\\.ts$',
  transform: { '^.+\\.(t|j)s$': ['@swc/jest', swc] },
  transformIgnorePatterns: ['/node_modules/(?!(@nestjs)/)'],
  moduleNameMapper: {
    '^@app/redis-patterns$': '<rootDir>/libs/redis-patterns/src',
    '^@app/redis-patterns/(.*)$': '<rootDir>/libs/redis-patterns/src/$1',
  },
  globalSetup: '<rootDir>/test/harness/global-setup.ts',
  globalTeardown: '<rootDir>/test/harness/global-teardown.ts',
  testEnvironment: 'node',
  // Integration specs wait on sockets, not on the CPU: two workers keep a 2-core machine busy without starving Redis.
  maxWorkers: 2,
  testTimeout: 30000,
};

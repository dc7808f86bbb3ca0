// swc instead of ts-jest: Nest 12 ships ESM-only packages that Jest on Node 20 cannot require(),
// so @nestjs/* is transformed to CommonJS as well. swc does not type-check: `npm test` runs tsc first.
const swc = require('./swc.config');

module.exports = {
  moduleFileExtensions: ['js', 'json', 'ts'],
  rootDir: '.',
  roots: ['<rootDir>/libs/', '<rootDir>/apps/', '<rootDir>/test/', '<rootDir>/examples/'],
  modulePathIgnorePatterns: ['<rootDir>/libs/redis-patterns/dist/'],
  testRegex: '.*\\.(spec|integration-spec|e2e-spec)\\.ts$',
  transform: { '^.+\\.(t|j)s$': ['@swc/jest', swc] },
  transformIgnorePatterns: ['/node_modules/(?!(@nestjs)/)'],
  // The package name maps to the library's sources, as the tsconfig paths do (the `@app` alias is a second name).
  moduleNameMapper: {
    '^nestjs-redis-patterns$': '<rootDir>/libs/redis-patterns/src',
    '^nestjs-redis-patterns/testing$': '<rootDir>/libs/redis-patterns/src/testing',
    '^nestjs-redis-patterns/adapters$': '<rootDir>/libs/redis-patterns/src/adapters',
    '^nestjs-redis-patterns/doctor$': '<rootDir>/libs/redis-patterns/src/doctor',
    '^nestjs-redis-patterns/health$': '<rootDir>/libs/redis-patterns/src/health',
    '^nestjs-redis-patterns/messaging$': '<rootDir>/libs/redis-patterns/src/messaging',
    '^nestjs-redis-patterns/structures$': '<rootDir>/libs/redis-patterns/src/structures',
    '^@app/redis-patterns$': '<rootDir>/libs/redis-patterns/src',
    '^@app/redis-patterns/(.*)$': '<rootDir>/libs/redis-patterns/src/$1',
  },
  globalSetup: '<rootDir>/test/harness/global-setup.ts',
  globalTeardown: '<rootDir>/test/harness/global-teardown.ts',
  testEnvironment: 'node',
  // One worker: the integration specs share the harness's Redis servers and start child processes and servers of
  // their own; on a 2-core machine a second worker made command deadlines (500 ms by default) expire at random in
  // specs that are not about outages. The whole run still takes a few minutes.
  maxWorkers: 1,
  testTimeout: 30000,
};

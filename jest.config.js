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

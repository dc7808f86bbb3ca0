// `npm run test:unit`: the library's colocated specs, which need no Redis server (no global setup starts one).
const base = require('./jest.config');

module.exports = {
  ...base,
  roots: ['<rootDir>/libs/'],
  testRegex: '.*\\.spec\\.ts$',
  globalSetup: undefined,
  globalTeardown: undefined,
};

import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import keyvTestSuite from '@keyv/test-suite';
import { Keyv } from 'keyv';
import { CacheService, RedisPatternsModule } from 'nestjs-redis-patterns';
import { RedisPatternsKeyvStore } from 'nestjs-redis-patterns/adapters';
import { connectionFor, uniquePrefix } from '../support/redis-env';

// Keyv's own compliance suite (@keyv/test-suite) against RedisPatternsKeyvStore on real Redis. The suite is written
// for Vitest: it takes Vitest's module and calls `test.it(name, (t) => …)`, asserting with the test context's
// `t.expect`. Its compiled code imports nothing from Vitest at run time, so Jest's `it`, `beforeEach`, `afterEach`
// and `expect` stand in for it.
let app: INestApplication;
let cache: CacheService;

beforeAll(async () => {
  const moduleRef = await Test.createTestingModule({
    imports: [RedisPatternsModule.forRoot({ connection: connectionFor('standalone'), keyPrefix: uniquePrefix('keyv-suite') })],
  }).compile();
  app = moduleRef.createNestApplication({ logger: false });
  await app.init();
  cache = app.get(CacheService);
});

afterAll(async () => {
  await app?.close();
});

type SuiteTest = (context: { expect: typeof expect }) => unknown;

const jestAsVitest = {
  // A wrapper of length 0: Jest would take a one-parameter test function for a `done` callback.
  it: (name: string, fn: SuiteTest) =>
    it(name, async () => {
      await fn({ expect });
    }),
  beforeEach: (fn: () => unknown) => beforeEach(async () => void (await fn())),
  afterEach: (fn: () => unknown) => afterEach(async () => void (await fn())),
};

// `as never`: the suite's parameter is Vitest's module type; the stand-in has the part the suite calls.
keyvTestSuite(jestAsVitest as never, Keyv as never, () => new RedisPatternsKeyvStore(cache));

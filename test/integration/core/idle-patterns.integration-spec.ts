import type { INestApplicationContext } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { Redis } from 'ioredis';
import { CacheService, RedisPatternsModule, type RedisPatternsModuleOptions } from 'nestjs-redis-patterns';
import { PubSubService } from 'nestjs-redis-patterns/messaging';
import { rawClient, uniquePrefix, waitFor } from '../../support/redis-env';

/** The module's connections to the standalone server, by the name each carries (`redis-patterns:<prefix>:…`). */
async function connectionsOf(admin: Redis, prefix: string): Promise<string[]> {
  const list = (await admin.client('LIST')) as string;
  return list
    .split('\n')
    .map((line) => /\bname=(\S*)/.exec(line)?.[1] ?? '')
    .filter((name) => name.startsWith(`redis-patterns:${prefix}:`))
    .sort();
}

const timers = (): number => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;

// Every pattern's providers are in every application, so what they cost while unused must be nothing: an app that
// only caches opens one connection and no timer, and a pattern's machinery starts when it is first used.
describe('patterns an application does not use cost nothing (standalone)', () => {
  let admin: Redis;
  const apps: INestApplicationContext[] = [];

  beforeAll(() => {
    admin = rawClient('standalone') as Redis;
  });
  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
    admin.disconnect();
  });

  async function start(prefix: string, options: Partial<RedisPatternsModuleOptions> = {}): Promise<INestApplicationContext> {
    const moduleRef = await Test.createTestingModule({
      imports: [RedisPatternsModule.forRoot({ connection: process.env.REDIS_URL_STANDALONE!, keyPrefix: prefix, ...options })],
    }).compile();
    const app = await moduleRef.init();
    apps.push(app);
    return app;
  }

  it('an app that only caches opens one connection and leaves no timer running', async () => {
    const prefix = uniquePrefix('idle');
    const before = timers();
    const app = await start(prefix);
    await app.get(CacheService).wrap('k', async () => 1);
    expect(await connectionsOf(admin, prefix)).toEqual([`redis-patterns:${prefix}:default`]);
    // A call's own timers (its command deadline) end with it; nothing periodic (a watchdog, a poller, a campaign)
    // is left behind.
    await waitFor(
      () => timers() <= before,
      3000,
      () => `no timer left (${timers()} running, ${before} before the app)`,
    );
  });

  it('pub/sub opens its subscriber connection on the first subscription, not at startup', async () => {
    const prefix = uniquePrefix('idle-pubsub');
    const app = await start(prefix);
    expect(await connectionsOf(admin, prefix)).toHaveLength(1);
    const subscription = await app.get(PubSubService).subscribe('news', () => undefined);
    await waitFor(
      async () => (await connectionsOf(admin, prefix)).length === 2,
      5000,
      () => 'a subscriber connection',
    );
    await subscription.unsubscribe();
  });
});

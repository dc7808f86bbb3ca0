import type { INestApplicationContext } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { CacheService, RedisPatternsModule } from 'nestjs-redis-patterns';
import { uniquePrefix } from '../../support/redis-env';
import { CapturingLogger } from '../../support/capturing-logger';
import { type AclUser, createAclUser } from '../connections/acl-user';

// A user whose ACL lacks `client|tracking` (or a managed service that blocks it): the near cache cannot be told of
// changes, so it must stay off, say so once at error level naming the permission, and not reconnect in a loop.
describe('near cache when Redis refuses CLIENT TRACKING (standalone)', () => {
  let user: AclUser;
  let app: INestApplicationContext;
  const logger = new CapturingLogger();

  beforeAll(async () => {
    user = await createAclUser('near-refused', ['~*', '&*', '+@all', '-client|tracking']);
    const moduleRef = await Test.createTestingModule({
      imports: [
        RedisPatternsModule.forRoot({
          connection: user.url,
          keyPrefix: uniquePrefix('near-refused'),
          logger,
          cache: { nearCache: { enabled: true } },
        }),
      ],
    }).compile();
    app = await moduleRef.init();
  });

  afterAll(async () => {
    await app?.close();
    await user?.remove();
  });

  it('stays off, says so once naming the permission, and the cache still answers from Redis', async () => {
    const cache = app.get(CacheService);
    let loads = 0;
    const loader = async () => ({ n: ++loads });
    expect(await cache.wrap('item', loader, { ttl: 30, nearCache: true })).toEqual({ n: 1 });
    expect(await cache.wrap('item', loader, { ttl: 30, nearCache: true })).toEqual({ n: 1 });
    expect(cache.nearStats()).toMatchObject({ live: false, entries: 0 });
    // A refusal is not retried in a reconnect loop: over a second, still one line (a reconnect loop would say it on every attempt).
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const refusals = logger.errors.filter((line) => line.includes('refused invalidation tracking'));
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toMatch(/NOPERM/);
    expect(refusals[0]).toContain('+client|tracking');
    expect(logger.warnings.filter((line) => line.includes('invalidation tracking'))).toEqual([]);
  });
});

import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { Cluster, Redis } from 'ioredis';
import { CacheService, RedisConnections, RedisPatternsModule } from 'nestjs-redis-patterns';
import { type BackendName, connectionOf, inspectKeys, type KeyInspector } from '../../support/backends';
import { rawClient, uniquePrefix, waitFor } from '../../support/redis-env';
// Internals, by relative path: the index's shape in memory and the per-write pruning bound.
import type { MemoryTagIndex } from '../../../libs/redis-patterns/src/cache/memory/memory-tag-index';
import { TAG_PRUNE_MAX } from '../../../libs/redis-patterns/src/cache/scripts/tag-register.script';

/** A tag's member index as a spec sees it: the sorted set on Redis, the MemoryTagIndex in memory. */
interface IndexInspector {
  /** Members held, expired or not (ZCARD). */
  size(tag: string): Promise<number>;
  /** Members whose expiry is after the server's now (ZCOUNT (now +inf). */
  live(tag: string): Promise<number>;
  /** A member's expiry (ZSCORE), in the server's ms. */
  expiryOf(tag: string, entry: string): Promise<number | undefined>;
  /** The server's clock, in ms (TIME). */
  now(): Promise<number>;
  close(): void;
}

function inspectIndex(backend: BackendName, app: INestApplication, prefix: string): IndexInspector {
  const key = (tag: string) => `${prefix}:cache-tag:{${tag}}:idx`;
  if (backend === 'memory') {
    const memory = app.get(RedisConnections).memory!;
    const index = (tag: string) => memory.get<MemoryTagIndex>(key(tag));
    return {
      size: async (tag) => index(tag)?.size ?? 0,
      live: async (tag) => index(tag)?.live(memory.now()).length ?? 0,
      expiryOf: async (tag, entry) => index(tag)?.expiryOf(entry),
      now: async () => memory.now(),
      close: () => undefined,
    };
  }
  const client: Redis | Cluster = rawClient(backend);
  const now = async () => {
    const [seconds, micros] = await client.time();
    return Number(seconds) * 1000 + Number(micros) / 1000;
  };
  return {
    size: (tag) => client.zcard(key(tag)),
    live: async (tag) => client.zcount(key(tag), `(${await now()}`, '+inf'),
    expiryOf: async (tag, entry) => {
      const score = await client.zscore(key(tag), entry);
      return score === null ? undefined : Number(score);
    },
    now,
    close: () => client.disconnect(),
  };
}

describe.each<BackendName>(['standalone', 'cluster', 'memory'])('tag member index on %s', (backend) => {
  let app: INestApplication;
  let cache: CacheService;
  let inspect: KeyInspector;
  let index: IndexInspector;
  const prefix = uniquePrefix(`tag-index-${backend}`);
  const entry = (key: string) => `${prefix}:cache:{${key}}`;
  const tombstones = async () => (await inspect.keys(`${prefix}:cache:{`)).filter((key) => key.endsWith(':inv')).sort();

  /** Writes `count` entries of `tag` living 1 s, and waits until every one of them has expired from the index too. */
  async function expiredBatch(tag: string, name: string, count: number): Promise<string[]> {
    const keys = Array.from({ length: count }, (_, i) => `${name}${i}`);
    const written = await Promise.all(keys.map((key, i) => cache.set(key, i, { ttl: 1, tags: [tag] })));
    expect(written.every(Boolean)).toBe(true);
    // An entry lives 1 s from its write; its member 1 s longer (the margin), from its registration just before.
    await waitFor(
      async () => (await index.live(tag)) === 1,
      10_000,
      () => `the ${count} members of ${tag} to expire`,
    );
    expect((await cache.getMany(keys)).every((value) => value === undefined)).toBe(true);
    return keys;
  }

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        RedisPatternsModule.forRoot({ connection: connectionOf(backend), keyPrefix: prefix, cache: { defaultTtl: 30, jitter: 0 } }),
      ],
    }).compile();
    app = moduleRef.createNestApplication();
    await app.init();
    cache = app.get(CacheService);
    inspect = inspectKeys(backend, app);
    index = inspectIndex(backend, app, prefix);
  });

  afterAll(async () => {
    await app?.close();
    inspect?.close();
    index?.close();
  });

  it('holds only the live members of a long-lived tag, and invalidation touches only those', async () => {
    // The tag outlives the short entries (as `product:1` does on entries keyed by request): the index key stays.
    await cache.set('anchor', 'a', { ttl: 60, tags: ['feed'] });
    await expiredBatch('feed', 'req', 200);
    expect(await index.size('feed')).toBe(201);
    await cache.set('fresh', 'f', { ttl: 60, tags: ['feed'] });
    // That write pruned the 200 expired members: the anchor and itself are left.
    expect(await index.size('feed')).toBe(2);
    expect(await index.expiryOf('feed', entry('req0'))).toBeUndefined();
    expect(await cache.invalidateTags('feed')).toBe(2);
    expect(await cache.getMany(['anchor', 'fresh'])).toEqual([undefined, undefined]);
    // One tombstone per live member, none for the 200 expired ones.
    expect(await tombstones()).toEqual([`${entry('anchor')}:inv`, `${entry('fresh')}:inv`]);
    expect(await index.size('feed')).toBe(0);
  });

  it('takes only live members at invalidation, even before a write has pruned the others', async () => {
    await cache.set('keep', 'k', { ttl: 60, tags: ['unpruned'] });
    await expiredBatch('unpruned', 'gone', 50);
    const before = (await tombstones()).length;
    expect(await cache.invalidateTags('unpruned')).toBe(1);
    expect(await tombstones()).toHaveLength(before + 1);
    expect(await tombstones()).toContain(`${entry('keep')}:inv`);
  });

  it(`prunes at most ${TAG_PRUNE_MAX} expired members per write, the rest at the next writes`, async () => {
    await cache.set('base', 'b', { ttl: 60, tags: ['burst'] });
    const count = TAG_PRUNE_MAX + 300;
    await expiredBatch('burst', 'b', count);
    await cache.set('next1', 1, { ttl: 60, tags: ['burst'] });
    expect(await index.size('burst')).toBe(1 + (count - TAG_PRUNE_MAX) + 1);
    await cache.set('next2', 2, { ttl: 60, tags: ['burst'] });
    expect(await index.size('burst')).toBe(3);
  });

  it('scores a member at its expiry plus the margin, and keeps the later expiry when a key registers again', async () => {
    const before = await index.now();
    await cache.set('again', 1, { ttl: 2, tags: ['re'] });
    const after = await index.now();
    const first = (await index.expiryOf('re', entry('again')))!;
    // ttl 2 s, no jitter, plus the 1 s margin, from the server's clock at registration.
    expect(first).toBeGreaterThanOrEqual(before + 3000 - 1);
    expect(first).toBeLessThanOrEqual(after + 3000 + 1);
    await cache.set('again', 2, { ttl: 30, tags: ['re'] });
    const later = (await index.expiryOf('re', entry('again')))!;
    expect(later).toBeGreaterThanOrEqual(first + 28_000);
    // A shorter write does not pull it back: a registration and its write are two steps, so two writes racing may
    // land in the other order and leave the 30 s value in place; dropping the member earlier could under-invalidate.
    await cache.set('again', 3, { ttl: 2, tags: ['re'] });
    expect(await index.expiryOf('re', entry('again'))).toBe(later);
    expect(await index.size('re')).toBe(1);
    // The index key itself still lives at least as long as its longest member.
    expect(await inspect.pttl(`${prefix}:cache-tag:{re}:idx`)).toBeGreaterThanOrEqual(later - (await index.now()) - 5);
    expect(await cache.invalidateTags('re')).toBe(1);
  });
});

import type { INestApplication } from '@nestjs/common';
import { InvalidArgumentError } from 'nestjs-redis-patterns';
import { SessionStore } from 'nestjs-redis-patterns/structures';
import { inspectKeys, type KeyInspector } from '../../support/backends';
import { uniquePrefix, waitFor } from '../../support/redis-env';
import { startApp, STRUCTURE_BACKENDS } from './structures-app';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(STRUCTURE_BACKENDS)('SessionStore on %s', (backend) => {
  const prefix = uniquePrefix(`sess-${backend}`);
  let app: INestApplication;
  let sessions: SessionStore;
  let admin: KeyInspector;
  const keyOf = (id: string) => `${prefix}:session:${id}`;
  const exists = async (id: string) => (await admin.pttl(keyOf(id))) !== -2;

  beforeAll(async () => {
    app = await startApp(backend, prefix, { sessions: { defaultTtlMs: 600_000 } });
    admin = inspectKeys(backend, app);
    sessions = app.get(SessionStore);
  });

  afterAll(async () => {
    admin?.close();
    await app?.close();
  });

  it('creates a session with a 256-bit random id, its hash and TTL written together', async () => {
    const id = await sessions.create({ userId: 42, roles: ['admin'], name: 'Ada' }, { ttlMs: 120_000 });
    expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(id, 'base64url')).toHaveLength(32);
    expect(await sessions.get(id)).toEqual({ userId: 42, roles: ['admin'], name: 'Ada' });
    const pttl = await admin.pttl(keyOf(id));
    expect(pttl).toBeGreaterThan(110_000);
    expect(pttl).toBeLessThanOrEqual(120_000);
    const ids = await Promise.all(Array.from({ length: 200 }, () => sessions.create({})));
    expect(new Set(ids).size).toBe(200);
  });

  it('uses the configured default TTL when create gives none', async () => {
    const id = await sessions.create({ a: 1 });
    expect(await admin.pttl(keyOf(id))).toBeGreaterThan(590_000);
  });

  it('keeps all 50 concurrent field updates and a slow request that started first (SESS-1)', async () => {
    const id = await sessions.create({ base: true }, { ttlMs: 60_000 });
    const slow = (async () => {
      const seen = await sessions.get(id); // a long-poll request reads the session first …
      await pause(200);
      return sessions.update(id, { slow: seen?.base }); // … and writes only the field it changed, last
    })();
    const fast = Array.from({ length: 50 }, (_, i) => sessions.update(id, { [`field${i}`]: i }));
    expect(await Promise.all([slow, ...fast])).toEqual(Array(51).fill(true));
    const data = await sessions.get(id);
    expect(Object.keys(data!).sort()).toHaveLength(52);
    for (let i = 0; i < 50; i++) expect(data![`field${i}`]).toBe(i);
    expect(data!.slow).toBe(true);
    expect(await admin.pttl(keyOf(id))).toBeGreaterThan(0); // HSET kept the TTL
  });

  it('removes a field set to undefined and leaves the others', async () => {
    const id = await sessions.create({ keep: 1, drop: 2 });
    await sessions.update(id, { drop: undefined, added: 'x' });
    expect(await sessions.get(id)).toEqual({ keep: 1, added: 'x' });
  });

  it('never resurrects a destroyed session, whatever updates are in flight (SESS-2)', async () => {
    for (let run = 0; run < 5; run++) {
      const id = await sessions.create({ user: 'u' });
      const inFlight = Array.from({ length: 30 }, (_, i) => sessions.update(id, { [`late${i}`]: i }));
      const destroyed = sessions.destroy(id);
      const results = await Promise.all([...inFlight, destroyed]);
      expect(results[results.length - 1]).toBe(true);
      expect(await sessions.update(id, { afterLogout: true })).toBe(false);
      expect(await sessions.touch(id)).toBe(false);
      expect(await sessions.get(id)).toBeNull();
      expect(await exists(id)).toBe(false);
    }
  });

  it('slides the idle TTL but never past the absolute lifetime (SESS-3)', async () => {
    const id = await sessions.create({ user: 'u' }, { ttlMs: 1000, maxLifetimeMs: 3000 });
    const started = Date.now();
    let aliveAfterIdle = false;
    // A request every 250 ms keeps the 1 s idle TTL alive, until the 3 s absolute deadline ends it.
    while (await sessions.touch(id)) {
      const pttl = await admin.pttl(keyOf(id));
      expect(pttl).toBeLessThanOrEqual(1000);
      if (Date.now() - started > 1500 && (await sessions.get(id))) aliveAfterIdle = true;
      expect(Date.now() - started).toBeLessThan(6000);
      await pause(250);
    }
    expect(aliveAfterIdle).toBe(true);
    expect(await sessions.get(id)).toBeNull();
    expect(Date.now() - started).toBeLessThan(4500);
  });

  it('touch with a TTL applies it once; touch without one restores the session TTL', async () => {
    const id = await sessions.create({}, { ttlMs: 300_000 });
    expect(await sessions.touch(id, { ttlMs: 5000 })).toBe(true);
    expect(await admin.pttl(keyOf(id))).toBeLessThanOrEqual(5000);
    expect(await sessions.touch(id)).toBe(true);
    expect(await admin.pttl(keyOf(id))).toBeGreaterThan(290_000);
  });

  it('expires an idle session', async () => {
    const id = await sessions.create({ a: 1 }, { ttlMs: 1000 });
    await waitFor(
      async () => (await sessions.get(id)) === null,
      5000,
      () => 'the idle session to expire',
    );
    expect(await sessions.update(id, { a: 2 })).toBe(false);
    expect(await exists(id)).toBe(false);
  });

  it('rejects bad arguments with a typed error naming them, writing nothing', async () => {
    await sessions.create({ present: true });
    const before = (await admin.keys(`${prefix}:`)).length;
    expect(before).toBeGreaterThan(0);
    await expect(sessions.create([] as never)).rejects.toThrow(InvalidArgumentError);
    await expect(sessions.create({}, { ttlMs: 0 })).rejects.toThrow(/options\.ttlMs/);
    await expect(sessions.create({ f: () => 1 })).rejects.toThrow(/data\.f/);
    await expect(sessions.update('', { a: 1 })).rejects.toThrow(/"id"/);
    await expect(sessions.update('x', 'nope' as never)).rejects.toThrow(/"patch"/);
    expect((await admin.keys(`${prefix}:`)).length).toBe(before);
  });

  it('escapes a hostile id instead of letting it shape the key', async () => {
    expect(await sessions.get('*')).toBeNull();
    expect(await sessions.update('a:b{c}', { x: 1 })).toBe(false);
    expect(await admin.keys(`${prefix}:session:a:`)).toEqual([]);
  });
});

// LOCK-1 and LOCK-3 (goals G3, G4): mutual exclusion across four app processes, and a paused holder fenced off.
import { Redis } from 'ioredis';
import { LockService } from 'nestjs-redis-patterns';
import { TsChild } from '../lib/child';
import { waitUntil } from '../lib/measure';
import { check, type Check, figure, type Scenario, type ScenarioContext } from '../lib/scenario';
import { keysWithoutTtl, ownApp, ownStandalone } from '../lib/servers';
import { FENCED_WRITE_LUA } from '../../fixtures/faults/fenced-write';

const PROCESSES = 4;
const CONTENDERS_PER_PROCESS = 8;
const ACQUISITIONS = 5000;
const RESOURCES = 10;

async function mutualExclusion(context: ScenarioContext, url: string, admin: Redis): Promise<Check[]> {
  const prefix = 'flk';
  const dataPrefix = 'fault-data';
  const shares = Array.from({ length: PROCESSES }, (_, i) => Math.floor(ACQUISITIONS / PROCESSES) + (i < ACQUISITIONS % PROCESSES ? 1 : 0));
  const workers = shares.map(
    (share) =>
      new TsChild('test/fixtures/faults/lock-contender.ts', {
        REDIS_URL: url,
        KEY_PREFIX: prefix,
        DATA_PREFIX: dataPrefix,
        CONTENDERS: String(CONTENDERS_PER_PROCESS),
        ACQUISITIONS: String(share),
        RESOURCES: String(RESOURCES),
      }),
  );
  workers.forEach((w) => context.defer(() => w.kill()));
  await Promise.all(workers.map((w) => w.waitForLine(/^ready$/, 60_000)));
  context.log(
    `${PROCESSES} processes × ${CONTENDERS_PER_PROCESS} contenders ready; ${ACQUISITIONS} acquisitions on ${RESOURCES} resources`,
  );
  workers.forEach((w) => w.send('go'));
  const results = (await Promise.all(workers.map((w) => w.waitForLine(/^done (.*)$/, 150_000)))).map(
    (m) => JSON.parse(m[1]) as { acquired: number; overlaps: number; failures: number; perResource: number[]; p50: number; p99: number },
  );
  const acquired = results.reduce((s, r) => s + r.acquired, 0);
  const overlaps = results.reduce((s, r) => s + r.overlaps, 0);
  const expected = Array.from({ length: RESOURCES }, (_, i) => results.reduce((s, r) => s + r.perResource[i], 0));
  const counters = await Promise.all(expected.map((_, i) => admin.get(`${dataPrefix}:n:${i}`).then(Number)));
  const wrong = counters.filter((value, i) => value !== expected[i]).length;
  const total = counters.reduce((s, v) => s + v, 0);
  const noTtl = await keysWithoutTtl(admin, `${prefix}:*`);
  Object.assign(context.figures, {
    lock1: {
      acquired,
      overlaps,
      failures: results.reduce((s, r) => s + r.failures, 0),
      counterTotal: total,
      wrongCounters: wrong,
      p50: results.map((r) => r.p50),
      p99: results.map((r) => r.p99),
      noTtl: noTtl.length,
    },
  });
  return [
    check(
      'G3 LOCK-1',
      `${PROCESSES * CONTENDERS_PER_PROCESS} contenders in ${PROCESSES} processes, ${ACQUISITIONS} acquisitions: overlaps 0`,
      `overlaps ${overlaps} in ${acquired} acquisitions`,
      overlaps === 0 && acquired === ACQUISITIONS,
    ),
    check(
      'G3 LOCK-1',
      'non-atomic GET/SET counters under the lock are exact',
      `sum ${total} of ${ACQUISITIONS}; ${wrong} of ${RESOURCES} counters off`,
      total === ACQUISITIONS && wrong === 0,
    ),
    figure(
      'LOCK-1',
      'acquire latency under contention',
      `p50 ${Math.max(...results.map((r) => r.p50))} ms, p99 ${Math.max(...results.map((r) => r.p99))} ms per process (worst)`,
    ),
    check(
      '§5 TTL',
      'every lock key has a TTL (fencing counters are the documented exception)',
      `keys without TTL ${noTtl.length}`,
      noTtl.length === 0,
    ),
  ];
}

async function pausedHolder(context: ScenarioContext, url: string, admin: Redis): Promise<Check[]> {
  const prefix = 'ffe';
  const dataPrefix = 'fault-fence';
  const ttlMs = 500;
  const app = await ownApp(context, { connection: url, keyPrefix: prefix });
  const locks = app.get(LockService);
  const worker = new TsChild('test/fixtures/faults/fenced-worker.ts', {
    REDIS_URL: url,
    KEY_PREFIX: prefix,
    DATA_PREFIX: dataPrefix,
    LOCK_TTL_MS: String(ttlMs),
  });
  context.defer(() => worker.kill());
  const tokenA = Number((await worker.waitForLine(/^acquired (\d+)$/, 60_000))[1]);
  worker.signal('SIGSTOP');
  const frozenAt = Date.now();
  await waitUntil(async () => (await admin.exists(`${prefix}:lock:{fenced}`)) === 0, 10_000, "A's lock to expire");
  const b = await locks.tryAcquire('fenced', { ttlMs: 10_000 });
  if (!b) throw new Error('B could not take the expired lock');
  const bWrite = Number(
    await admin.eval(FENCED_WRITE_LUA, 2, `${dataPrefix}:value`, `${dataPrefix}:fence`, String(b.fencingToken), 'from-B'),
  );
  await admin.set(`${dataPrefix}:unfenced`, 'from-B', 'PX', 60_000);
  // Keep A frozen well past its TTL (1.5 s in all), as a long GC pause would.
  await waitUntil(() => Date.now() - frozenAt >= 1500, 5000, 'the pause to last 1.5 s');
  worker.send('write');
  worker.signal('SIGCONT');
  const fenced = Number((await worker.waitForLine(/^fenced (\d)$/, 10_000))[1]);
  const abort = await worker.waitForLine(/^abort (-?\d+) (\S+)$/, 10_000);
  const abortMs = Number(abort[1]);
  const value = await admin.get(`${dataPrefix}:value`);
  const unfenced = await admin.get(`${dataPrefix}:unfenced`);
  const bHeld = (await admin.get(`${prefix}:lock:{fenced}`)) === b.token;
  await b.release();
  const intervalMs = Math.floor(ttlMs / 3);
  Object.assign(context.figures, {
    lock3: {
      tokenA,
      tokenB: b.fencingToken,
      bWrite,
      staleFencedAccepted: fenced,
      unfencedOverwritten: unfenced === 'from-A',
      abortAfterResumeMs: abortMs,
      abortReason: abort[2],
      bStillHeld: bHeld,
    },
  });
  return [
    check(
      'G4 LOCK-3',
      'holder SIGSTOPped past its TTL: its fenced write is rejected after it resumes (stale writes accepted 0)',
      `stale fenced writes accepted ${fenced} (token A ${tokenA} < B ${b.fencingToken}); value "${value}"`,
      fenced === 0 && bWrite === 1 && value === 'from-B' && bHeld,
    ),
    figure(
      'LOCK-3',
      'without fencing the stale write lands (the hazard fencing closes)',
      `unfenced stale writes accepted ${unfenced === 'from-A' ? 1 : 0}`,
    ),
    check(
      'G4 LOCK-3',
      `the paused holder's AbortSignal fires within one renewal interval (${intervalMs} ms) after resume`,
      `aborted ${abortMs} ms after resume (${abort[2]})`,
      abortMs >= 0 && abortMs <= intervalMs && abort[2] === 'LockLostError',
    ),
  ];
}

export const locksScenario: Scenario = {
  id: 'LOCK',
  title: 'locks: contention and a paused holder',
  deadlineMs: 120_000,
  // Runs in about 6 s either way; the quick suite's budget has no room for the rest of the full deadline.
  quickDeadlineMs: 60_000,
  async run(context) {
    const server = await ownStandalone(context, 'locks');
    const admin = new Redis(server.url);
    context.defer(() => admin.disconnect());
    const first = await mutualExclusion(context, server.url, admin);
    const second = await pausedHolder(context, server.url, admin);
    return [...first, ...second];
  },
};

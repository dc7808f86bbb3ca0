// LOCK-5 (goal G5): no lock is handed out whose validity is already over, by the handle's own clock or on the
// server, while CLIENT PAUSE and DEBUG SLEEP hold replies past the TTL and contenders win on late retries (right
// as a holder's TTL runs out).
//
// Clocks: a Lock's validity runs on performance.now() from the start of the attempt that succeeded; the server's
// expiry on its wall clock. Both are on this machine, so a PTTL executed between t0 and t1 (client clock) puts the
// server's expiry in [t0 + pttl, t1 + pttl + 1] (PTTL truncates to the ms).
//
// Timing: Redis 7.0 lifts a CLIENT PAUSE from its 100 ms cron (hz 10), so a pause of p ms holds commands p to
// p + 100 ms. With TTL 150 ms, a pause of ttl + 100 = 250 ms holds the reply 250-350 ms: after the TTL, inside the
// library's default 500 ms command deadline.
//
// Orderings at the server (one event loop; replies are written after every command read in that turn):
// - CLIENT PAUSE first, acquire after: the SET runs when the pause ends, so its reply comes back after the TTL
//   measured from the attempt's start (the server key itself is fresh);
// - acquire first, CLIENT PAUSE after: the SET ran and its reply was due before the pause: nothing is delayed;
// - acquire first, DEBUG SLEEP after, read in the same turn: the SET ran, then the server sleeps before writing the
//   reply, so the key has expired on the server when the reply arrives — what a validity counted from the reply
//   (instead of the attempt's start) would hand out. A 10 ms DEBUG SLEEP sent just before both (from a third
//   connection) makes them arrive while the server is busy, so they are read in one turn, the acquire first (epoll
//   reports sockets in the order they became readable); the fencing token (server µs) tells when the SET ran;
// - a pause longer than the command deadline: the acquisition fails (a failure, not an expired lock).
import { Redis } from 'ioredis';
import { type Lock, LockNotAcquiredError, LockService, RedisConnections } from 'nestjs-redis-patterns';
import { now, pause, percentile, tally, waitUntil } from '../lib/measure';
import { check, type Check, figure, type Scenario, type ScenarioContext } from '../lib/scenario';
import { ownApp, ownStandalone } from '../lib/servers';

const PREFIX = 'fle';
const TTL_MS = 150;
/** The library's default command deadline: a reply held ttl + 100 (+ 100 cron) ms still arrives within it. */
const COMMAND_TIMEOUT_MS = 500;
const DELAY_MS = TTL_MS + 100;
/** A pause that releases the acquire before its validity ends (held 25-125 ms): the lock comes back shortened. */
const SHORT_PAUSE_MS = 25;
/** The validity the handle may claim at most: ttl − ceil(ttl × driftFactor 0.01) − 2 ms (lock.service.ts). */
const MAX_VALIDITY_MS = TTL_MS - Math.ceil(TTL_MS * 0.01) - 2;
const RESOURCES = 16;
const CONTENDERS = 48;
/** A holder that walks away 1 time in 20 leaves its lock to expire: its waiters then win on a late retry. */
const ABANDON = 0.05;
const WAIT_MS = 2000;

// PTTL and ownership read in one step: a key that changed hands between two commands would mislead.
const PROBE_LUA = `return {redis.call('PTTL', KEYS[1]), redis.call('GET', KEYS[1]) == ARGV[1] and 1 or 0}`;

/** What the server and the handle said about one handed-out lock. */
interface Inspection {
  /** The handle's own clock said it was over when the caller got it. */
  expiredAtHandOut: boolean;
  /** The server had no key of ours (or no TTL) while the handle still claimed validity after the probe returned. */
  serverGone: boolean;
  /** The server key was gone, but the probe answered after the handle's own validity ended too (no claim broken). */
  lateProbe: boolean;
  /** Even the latest possible server expiry comes before the end of the handle's validity. */
  overclaim: boolean;
  /** Server expiry − end of the handle's validity, ms (positive: the handle is conservative). */
  marginMs?: number;
  remainingMs: number;
}

async function inspect(admin: Redis, lock: Lock): Promise<Inspection> {
  const remaining0 = lock.remainingMs;
  const t0 = now();
  const [pttl, ours] = (await admin.eval(PROBE_LUA, 1, lock.keys.lease, lock.token)) as [number, number];
  const t1 = now();
  const remaining1 = lock.remainingMs;
  const result: Inspection = {
    expiredAtHandOut: remaining0 <= 0,
    serverGone: false,
    lateProbe: false,
    overclaim: false,
    remainingMs: remaining0,
  };
  if (remaining0 <= 0) return result;
  if (pttl <= 0 || ours !== 1) {
    if (remaining1 > 0) result.serverGone = true;
    else result.lateProbe = true;
    return result;
  }
  const validUntil = t0 + remaining0;
  result.marginMs = (t0 + t1) / 2 + pttl - validUntil;
  result.overclaim = validUntil > t1 + pttl + 1;
  return result;
}

class Tally {
  handed = 0;
  expiredAtHandOut = 0;
  serverGone = 0;
  lateProbes = 0;
  overclaims = 0;
  readonly margins: number[] = [];
  readonly remaining: number[] = [];

  add(i: Inspection): void {
    this.handed++;
    if (i.expiredAtHandOut) this.expiredAtHandOut++;
    if (i.serverGone) this.serverGone++;
    if (i.lateProbe) this.lateProbes++;
    if (i.overclaim) this.overclaims++;
    if (i.marginMs !== undefined) this.margins.push(i.marginMs);
    this.remaining.push(i.remainingMs);
  }

  get violations(): number {
    return this.expiredAtHandOut + this.serverGone + this.overclaims;
  }
}

const reasonOf = (error: unknown): string =>
  error instanceof LockNotAcquiredError ? error.reason : `${(error as Error).name}: ${(error as Error).message}`;

/** Contenders on few resources, holders that sometimes walk away, and pauses/sleeps of the server meanwhile. */
async function contention(context: ScenarioContext, locks: LockService, admin: Redis, faults: Redis, target: number) {
  const seen = new Tally();
  const failures = new Map<string, number>();
  const handOuts: Array<{ calledAt: number; resolvedAt: number }> = [];
  const faultWindows: Array<{ from: number; to: number }> = [];
  let lateRetries = 0;
  const done = (): boolean => seen.handed >= target || context.signal.aborted;

  const contender = async (): Promise<void> => {
    while (!done()) {
      const resource = `r${Math.floor(Math.random() * RESOURCES)}`;
      const calledAt = now();
      let lock: Lock;
      try {
        lock = await locks.acquire(resource, { ttlMs: TTL_MS, waitMs: WAIT_MS });
      } catch (error) {
        const reason = reasonOf(error);
        failures.set(reason, (failures.get(reason) ?? 0) + 1);
        // Back off on a timer: with the connection down the rejection comes without any I/O, and callers retrying at
        // once would never yield to the event loop (so the client could never reconnect).
        await pause(5);
        continue;
      }
      const resolvedAt = now();
      // Inspected before anything else runs on this contender: the hand-out itself is what is judged.
      seen.add(await inspect(admin, lock));
      handOuts.push({ calledAt, resolvedAt });
      if (resolvedAt - calledAt > TTL_MS) lateRetries++;
      if (Math.random() >= ABANDON) {
        await pause(Math.random() * 4);
        await lock.release().catch(() => false);
      }
      // Think time, so acquisitions also start while the server is paused (and come back with little validity).
      await pause(Math.random() * 10);
    }
  };

  const faulter = (async () => {
    let n = 0;
    while (!done()) {
      await pause(300 + Math.random() * 400);
      if (done()) break;
      const from = now();
      if (n++ % 2 === 0) {
        // CLIENT PAUSE answers at once; the pause ends on the server's next 100 ms cron after DELAY_MS.
        await faults.call('CLIENT', 'PAUSE', String(DELAY_MS), 'ALL');
        faultWindows.push({ from, to: from + DELAY_MS + 100 });
      } else {
        await faults.call('DEBUG', 'SLEEP', String(DELAY_MS / 1000));
        faultWindows.push({ from, to: now() });
      }
    }
  })();

  await Promise.all([...Array.from({ length: CONTENDERS }, contender), faulter]);
  const duringFault = handOuts.filter((h) => faultWindows.some((w) => h.calledAt < w.to && h.resolvedAt > w.from)).length;
  return { tally: seen, failures: Object.fromEntries(failures), lateRetries, duringFault, faults: faultWindows.length };
}

type Variant = 'pause-before' | 'short-pause-before' | 'pause-after' | 'sleep-after' | 'pause-past-deadline';

interface Round {
  variant: Variant;
  outcome: 'handed' | 'refused' | 'failed';
  reason?: string;
  elapsedMs: number;
  inspection?: Inspection;
  /** A refused grant whose key was still there afterwards (not given back). */
  leftBehind: boolean;
  /** When the acquire script ran, in server time from the round's start (its fencing token is the server's µs). */
  setAtMs?: number;
}

const serverMicros = async (admin: Redis): Promise<number> => {
  const [seconds, micros] = await admin.time();
  return Number(seconds) * 1e6 + Number(micros);
};

/** One acquisition of a fresh resource with a fault placed before or after it. */
async function round(locks: LockService, admin: Redis, [faults, busier]: Redis[], variant: Variant, i: number): Promise<Round> {
  const resource = `solo-${variant}-${i}`;
  const key = `${PREFIX}:lock:{${resource}}`;
  const fault = (): Promise<unknown> => {
    switch (variant) {
      case 'short-pause-before':
        return faults.call('CLIENT', 'PAUSE', String(SHORT_PAUSE_MS), 'ALL');
      case 'sleep-after':
        return faults.call('DEBUG', 'SLEEP', String(DELAY_MS / 1000));
      case 'pause-past-deadline':
        return faults.call('CLIENT', 'PAUSE', String(COMMAND_TIMEOUT_MS + 200), 'ALL');
      default:
        return faults.call('CLIENT', 'PAUSE', String(DELAY_MS), 'ALL');
    }
  };
  const roundStart = await serverMicros(admin);
  let attempt: Promise<Lock | null>;
  let faulted: Promise<unknown> = Promise.resolve();
  let started: number;
  if (variant.endsWith('-before') || variant === 'pause-past-deadline') {
    // CLIENT PAUSE answers at once; the acquire written after its reply is held by it.
    await fault();
    started = now();
    attempt = locks.tryAcquire(resource, { ttlMs: TTL_MS });
  } else {
    const busy = variant === 'sleep-after' ? busier.call('DEBUG', 'SLEEP', '0.01') : undefined;
    started = now();
    attempt = locks.tryAcquire(resource, { ttlMs: TTL_MS });
    // The acquire leaves in a setImmediate batch: a later setImmediate runs after it was written.
    await new Promise((resolve) => setImmediate(resolve));
    faulted = Promise.all([busy, fault()]);
  }
  let lock: Lock | null = null;
  let reason: string | undefined;
  try {
    lock = await attempt;
  } catch (error) {
    reason = reasonOf(error);
  }
  const elapsedMs = now() - started;
  const inspection = lock ? await inspect(admin, lock) : undefined;
  await faulted;
  let leftBehind = false;
  if (!lock && reason === undefined) leftBehind = (await admin.exists(key)) === 1;
  if (lock) await lock.release().catch(() => false);
  const fence = await admin.get(`${key}:fence`);
  const setAtMs = fence === null ? undefined : (Number(fence) - roundStart) / 1000;
  return { variant, outcome: lock ? 'handed' : reason ? 'failed' : 'refused', reason, elapsedMs, inspection, leftBehind, setAtMs };
}

const ms = (value: number): string => `${Math.round(value * 10) / 10} ms`;

export const lockExpiryScenario: Scenario = {
  id: 'LOCK-EXPIRY',
  title: 'locks: never hand out an expired lock (CLIENT PAUSE / DEBUG SLEEP past the TTL, late retries)',
  deadlineMs: 90_000,
  quickDeadlineMs: 30_000,
  async run(context) {
    const target = context.quick ? 2000 : 10_000;
    const perVariant = context.quick ? 4 : 15;
    const pastDeadlineRounds = context.quick ? 1 : 3;
    const server = await ownStandalone(context, 'lock-expiry');
    const admin = new Redis(server.url);
    const faults = new Redis(server.url);
    // On a connection of its own: two commands pipelined on one connection are read, and run, back to back.
    const busier = new Redis(server.url);
    context.defer(() => [admin, faults, busier].forEach((c) => c.disconnect()));
    const app = await ownApp(context, {
      connection: server.url,
      keyPrefix: PREFIX,
      commandTimeoutMs: COMMAND_TIMEOUT_MS,
      lock: { retryDelayMs: 5, maxRetryDelayMs: 50 },
    });
    const locks = app.get(LockService);

    context.log(
      `${CONTENDERS} contenders on ${RESOURCES} resources until ${target} locks are handed out; server paused/slept ${DELAY_MS} ms every 0.3-0.7 s`,
    );
    const bulk = await contention(context, locks, admin, faults, target);

    const variants: Variant[] = ['pause-before', 'short-pause-before', 'pause-after', 'sleep-after'];
    const rounds: Round[] = [];
    for (let i = 0; i < perVariant; i++) for (const v of variants) rounds.push(await round(locks, admin, [faults, busier], v, i));
    const client = app.get(RedisConnections).get();
    for (let i = 0; i < pastDeadlineRounds; i++) {
      rounds.push(await round(locks, admin, [faults, busier], 'pause-past-deadline', i));
      // The dropped connection comes back once the pause ends; the next round needs it.
      await waitUntil(() => client.status === 'ready', 5000, 'the library connection to reconnect');
    }
    context.log(`${rounds.length} directed rounds done`);

    const directed = new Tally();
    for (const r of rounds) if (r.inspection) directed.add(r.inspection);
    const all = new Tally();
    for (const t of [bulk.tally, directed]) {
      all.handed += t.handed;
      all.expiredAtHandOut += t.expiredAtHandOut;
      all.serverGone += t.serverGone;
      all.lateProbes += t.lateProbes;
      all.overclaims += t.overclaims;
      all.margins.push(...t.margins);
      all.remaining.push(...t.remaining);
    }
    // A reply later than the validity the handle could claim must never yield a lock.
    const late = rounds.filter((r) => r.variant !== 'pause-past-deadline' && r.elapsedMs >= MAX_VALIDITY_MS);
    const lateHanded = late.filter((r) => r.outcome === 'handed').length;
    // The SET ran before the sleep, yet its reply came after it: the server key expired before the reply arrived.
    const serverExpiredFirst = late.filter((r) => r.variant === 'sleep-after' && r.setAtMs !== undefined && r.setAtMs < DELAY_MS / 2);
    const leftBehind = rounds.filter((r) => r.leftBehind).length;
    const pastDeadline = rounds.filter((r) => r.variant === 'pause-past-deadline');
    const byVariant = Object.fromEntries(
      [...variants, 'pause-past-deadline' as const].map((v) => {
        const of = rounds.filter((r) => r.variant === v);
        return [
          v,
          {
            outcomes: tally(of.map((r) => r.reason ?? r.outcome)),
            elapsedMs: of.map((r) => Math.round(r.elapsedMs)),
            setAtMs: of.map((r) => (r.setAtMs === undefined ? null : Math.round(r.setAtMs))),
          },
        ];
      }),
    );
    Object.assign(context.figures, {
      bulk: {
        handed: bulk.tally.handed,
        violations: bulk.tally.violations,
        lateProbes: bulk.tally.lateProbes,
        lateRetries: bulk.lateRetries,
        duringFault: bulk.duringFault,
        faults: bulk.faults,
        failures: bulk.failures,
      },
      directed: byVariant,
      marginMs: {
        min: Math.min(...all.margins),
        p1: percentile(all.margins, 1),
        p50: percentile(all.margins, 50),
        max: Math.max(...all.margins),
      },
      remainingAtHandOutMs: { min: Math.min(...all.remaining), p1: percentile(all.remaining, 1), p50: percentile(all.remaining, 50) },
    });

    const checks: Check[] = [
      check(
        'G5 LOCK-5',
        `0 locks with expiration ≤ now across ${target} acquisitions with retries and CLIENT PAUSE/DEBUG SLEEP ${DELAY_MS} ms (TTL ${TTL_MS} ms; ${CONTENDERS} contenders on ${RESOURCES} resources, waitMs ${WAIT_MS}) plus ${rounds.length} directed rounds: expired by the handle's own clock at hand-out, or gone on the server while the handle still claimed it`,
        `${all.violations} of ${all.handed} handed out (own clock ${all.expiredAtHandOut}, server gone ${all.serverGone}); provoked: ${bulk.faults} server pauses/sleeps, ${bulk.duringFault} hand-outs overlapping one (least validity left ${ms(Math.min(...bulk.tally.remaining))}), ${bulk.lateRetries} won after waiting > TTL`,
        all.expiredAtHandOut === 0 &&
          all.serverGone === 0 &&
          bulk.tally.handed >= target &&
          bulk.faults > 0 &&
          bulk.duringFault > 0 &&
          bulk.lateRetries > 0,
      ),
      check(
        'G5 LOCK-5',
        `a grant whose reply came after its validity (${MAX_VALIDITY_MS} ms) is refused and its key released: handed out 0, keys left 0`,
        `${late.length} late replies (${serverExpiredFirst.length} after the server key itself had expired, DEBUG SLEEP): handed out ${lateHanded}, keys left ${leftBehind}`,
        late.length >= perVariant && serverExpiredFirst.length > 0 && lateHanded === 0 && leftBehind === 0,
      ),
      check(
        'G5 LOCK-5',
        `validity = ttl − elapsed − drift from the successful attempt's start: the handle never outlasts the server key (overclaims 0)`,
        `overclaims ${all.overclaims} of ${all.margins.length} compared; server expiry − handle validity: min ${ms(Math.min(...all.margins))}, p1 ${ms(percentile(all.margins, 1))}, p50 ${ms(percentile(all.margins, 50))}, max ${ms(Math.max(...all.margins))}`,
        all.margins.length > 0 && all.overclaims === 0,
      ),
      check(
        'G5 LOCK-5 LOCK-9',
        `a reply held past the command deadline (CLIENT PAUSE ${COMMAND_TIMEOUT_MS + 200} ms, ${pastDeadlineRounds} round(s)) fails the acquisition (LockNotAcquiredError unavailable), never a lock`,
        pastDeadline.map((r) => `${r.reason ?? r.outcome} after ${ms(r.elapsedMs)}`).join('; '),
        pastDeadline.length === pastDeadlineRounds && pastDeadline.every((r) => r.outcome === 'failed' && r.reason === 'unavailable'),
      ),
      figure(
        'G5 LOCK-5',
        'hand-outs whose server key was gone by the time the probe ran, after the handle had expired too (probe late, no claim broken)',
        `${all.lateProbes} of ${all.handed}; remaining validity at hand-out min ${ms(Math.min(...all.remaining))}, p1 ${ms(percentile(all.remaining, 1))}`,
      ),
      figure(
        'G5 LOCK-5',
        'contention: acquisitions that failed (reason: count)',
        Object.entries(bulk.failures)
          .map(([k, v]) => `${k}: ${v}`)
          .join(', ') || 'none',
      ),
    ];
    await app.close();
    return checks;
  },
};

// COORDINATION (issue 22 item 5): semaphores, read-write locks, leader election and idempotency keys under real
// concurrency and process faults, each process a child of its own on one private redis-server. None of these patterns
// has an entry in ../shared/RELIABILITY.md (its catalogue predates them), so the lines name the pattern instead of a
// catalogue id; their bounds are the issue's. Occupancy and runs are recorded in Redis by the holders and handlers
// themselves (test/fixtures/faults/occupancy.ts), never read from the library's own keys, except where the promise is
// about those keys (the semaphore's holder set after a SIGKILL).
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';
import { Redis } from 'ioredis';
import { SemaphoreService } from 'nestjs-redis-patterns';
import { TsChild } from '../lib/child';
import { now, pause, percentile, waitUntil } from '../lib/measure';
import { check, type Check, figure, type Scenario, type ScenarioContext } from '../lib/scenario';
import { keysWithoutTtl, ownApp, ownStandalone } from '../lib/servers';

/** Redis server time in ms (one clock for every process). */
async function serverMs(redis: Redis): Promise<number> {
  const [seconds, micros] = await redis.time();
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}

const spawnChild = (context: ScenarioContext, file: string, env: Record<string, string>): TsChild => {
  const child = new TsChild(`test/fixtures/faults/${file}`, env);
  context.defer(() => child.kill());
  return child;
};

/** The time (parent's monotonic clock) of the first line of `child` from index `from` on matching `pattern`. */
function lineAfter(child: TsChild, from: number, pattern: RegExp): { match: RegExpMatchArray; at: number } | undefined {
  for (let i = from; i < child.lines.length; i++) {
    const match = pattern.exec(child.lines[i]);
    if (match) return { match, at: child.lineTimes[i] };
  }
  return undefined;
}

const ms = (value: number): string => `${Math.round(value)} ms`;

// ---------------------------------------------------------------------------------------------------------------
// Semaphore: 32 contenders in 4 processes on 3 permits; then holders SIGKILLed while they hold permits.

const SEM_PROCESSES = 4;
const SEM_CONTENDERS = 8;
const PERMITS = 3;
const PERMIT_TTL_MS = 1000;
/** The library's default `lock.autoExtendRatio`: using() extends a permit every TTL / 3. */
const AUTO_EXTEND_RATIO = 1 / 3;
/** The fixture's `lock.maxRetryDelayMs`: the longest backoff step of a waiting contender. */
const MAX_RETRY_DELAY_MS = 50;
/** Late timers on this 2-core machine (a holder's extension, a waiter's retry). */
const SEM_SLACK_MS = 250;
/**
 * A killed holder last acquired or extended its permit at most TTL × ratio (+ a late timer) before the kill, so its
 * permit cannot expire before kill + TTL × (1 − ratio) − this margin: it counts as an occupant until then.
 */
const DEAD_MARGIN_MS = 150;

interface SemSummary {
  acquired: number;
  failures: number;
  lost: number;
  p50: number;
  p99: number;
  max: number;
}

/** One SIGKILL round as observed: the holder set at the kill and one TTL later, and who survived. */
interface KillObservation {
  victims: number;
  killMs: number;
  /** The library's holder set (owner token, expiry, …) at the kill, and one TTL + 100 ms later (at `afterMs`). */
  atKill: string[];
  after: string[];
  afterMs: number;
  survivors: string[];
  /** Server time from the kill to live holders being `PERMITS` again. */
  fullMs: number | undefined;
}

interface KillRound {
  victims: number;
  deadPermits: number;
  leaked: number;
  liveAfter: number;
  expiredNotPruned: number;
  fullMs: number | undefined;
}

/**
 * Classifies a round once every holder has recorded its owner token (`owners`: token → pid): a token of nobody alive
 * after the kill, or of nobody at all (a victim killed between its acquisition and its record), is a dead permit.
 */
function classify(round: KillObservation, owners: Record<string, string>): KillRound {
  const live = (token: string): boolean => round.survivors.includes(owners[token] ?? '');
  const result: KillRound = { victims: round.victims, deadPermits: 0, leaked: 0, liveAfter: 0, expiredNotPruned: 0, fullMs: round.fullMs };
  for (let i = 0; i < round.atKill.length; i += 2)
    if (Number(round.atKill[i + 1]) > round.killMs && !live(round.atKill[i])) result.deadPermits++;
  for (let i = 0; i < round.after.length; i += 2) {
    const unexpired = Number(round.after[i + 1]) > round.afterMs;
    if (unexpired && live(round.after[i])) result.liveAfter++;
    else if (unexpired) result.leaked++;
    else result.expiredNotPruned++;
  }
  return result;
}

async function semaphore(context: ScenarioContext, url: string, admin: Redis): Promise<Check[]> {
  const prefix = 'fco-sem';
  const data = 'fco-semdata';
  const resource = 'pool';
  const holdersKey = `${prefix}:semaphore:{${resource}}`;
  const occupants = `${data}:occupants`;
  const spawn = (): TsChild =>
    spawnChild(context, 'semaphore-contender.ts', {
      REDIS_URL: url,
      KEY_PREFIX: prefix,
      DATA_PREFIX: data,
      SEMAPHORE: resource,
      PERMITS: String(PERMITS),
      TTL_MS: String(PERMIT_TTL_MS),
      CONTENDERS: String(SEM_CONTENDERS),
    });
  let workers = Array.from({ length: SEM_PROCESSES }, spawn);
  await Promise.all(workers.map((w) => w.waitForLine(/^ready$/, 60_000)));

  // Steady contention: every process takes its share of the permits, each held 1–4 ms.
  const total = context.quick ? 480 : 1600;
  context.log(`semaphore: ${SEM_PROCESSES} × ${SEM_CONTENDERS} contenders, ${PERMITS} permits, ${total} holds`);
  workers.forEach((w) => w.send(`go ${total / SEM_PROCESSES} steady`));
  const steady = (await Promise.all(workers.map((w) => w.waitForLine(/^done (.*)$/, 90_000)))).map((m) => JSON.parse(m[1]) as SemSummary);
  const steadyStats = await admin.hgetall(`${data}:stats:steady`);

  // Kill rounds: all processes load the semaphore (some holds past an extension); freeze them all for an instant,
  // SIGKILL the (up to) two processes holding the most permits, thaw the others.
  const rounds = context.quick ? 1 : 2;
  const observed: KillObservation[] = [];
  const loadSummaries: SemSummary[] = [];
  const killStats: Array<Record<string, string>> = [];
  for (let round = 0; round < rounds; round++) {
    const phase = `kill${round}`;
    const stats = `${data}:stats:${phase}`;
    workers.forEach((w) => w.send(`load ${phase}`));
    await pause(800);
    let victims: TsChild[] = [];
    let killMs = 0;
    let killAt = 0;
    let snapshot: string[] = [];
    for (let attempt = 0; attempt < 20 && victims.length === 0; attempt++) {
      workers.forEach((w) => w.signal('SIGSTOP'));
      const inside = await admin.zrangebyscore(occupants, '+inf', '+inf');
      const counts = new Map<string, number>();
      for (const member of inside) counts.set(member.split(':')[0], (counts.get(member.split(':')[0]) ?? 0) + 1);
      const chosen = [...counts.entries()]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 2)
        .map(([pid]) => pid);
      victims = workers.filter((w) => chosen.includes(String(w.pid)));
      if (victims.length === 0) {
        workers.forEach((w) => w.signal('SIGCONT'));
        await pause(50);
        continue;
      }
      killMs = await serverMs(admin);
      killAt = now();
      victims.forEach((v) => v.signal('SIGKILL'));
      await Promise.all(victims.map((v) => v.exited));
      const dead = inside.filter((member) => chosen.includes(member.split(':')[0]));
      const deadUntil = killMs + Math.floor(PERMIT_TTL_MS * (1 - AUTO_EXTEND_RATIO)) - DEAD_MARGIN_MS;
      const marks = admin.multi();
      for (const member of dead) marks.zadd(occupants, 'XX', deadUntil, member);
      marks.hset(stats, 'armed', '1');
      await marks.exec();
      snapshot = await admin.zrange(holdersKey, '0', '-1', 'WITHSCORES');
      workers.filter((w) => !victims.includes(w)).forEach((w) => w.signal('SIGCONT'));
    }
    if (victims.length === 0) throw new Error('no process held a permit at any of 20 looks');
    const survivors = workers.filter((w) => !victims.includes(w));
    // The permits' TTL after the kill: the dead permits must be gone, the holder set only live holders.
    await waitUntil(() => now() - killAt >= PERMIT_TTL_MS + 100, PERMIT_TTL_MS + 5000, 'the TTL to pass');
    const [[, time], [, after]] = (await admin.multi().time().zrange(holdersKey, '0', '-1', 'WITHSCORES').exec()) as [
      [null, [string, string]],
      [null, string[]],
    ];
    const afterMs = Number(time[0]) * 1000 + Math.floor(Number(time[1]) / 1000);
    const fullAt = await waitUntil(async () => (await admin.hget(stats, 'full-at')) !== null, PERMIT_TTL_MS + 5000, 'full capacity')
      .then(async () => Number(await admin.hget(stats, 'full-at')))
      .catch(() => undefined);
    observed.push({
      victims: victims.length,
      killMs,
      atKill: snapshot,
      after,
      afterMs,
      survivors: survivors.map((s) => String(s.pid)),
      fullMs: fullAt === undefined ? undefined : fullAt - killMs,
    });
    context.log(`semaphore: round ${round + 1}: killed ${victims.length} processes; full again after ${observed.at(-1)!.fullMs} ms`);
    // Stop the round: survivors stop (releasing what they hold); the next round starts from fresh processes.
    survivors.forEach((w) => w.send('stop'));
    loadSummaries.push(
      ...(await Promise.all(survivors.map((w) => w.waitForLine(/^stopped (.*)$/, 30_000)))).map((m) => JSON.parse(m[1]) as SemSummary),
    );
    await Promise.all(survivors.map((w) => w.exited));
    killStats.push(await admin.hgetall(stats));
    if (round + 1 < rounds) {
      workers = Array.from({ length: SEM_PROCESSES }, spawn);
      await Promise.all(workers.map((w) => w.waitForLine(/^ready$/, 60_000)));
    }
  }

  // Every holder has recorded its owner token by now (the survivors stopped after finishing their work).
  const owners = await admin.hgetall(`${data}:owners`);
  const killRounds = observed.map((round) => classify(round, owners));

  // Everybody gone: nothing may be held, and the full capacity must be there for new holders.
  const app = await ownApp(context, { connection: url, keyPrefix: prefix });
  const semaphores = app.get(SemaphoreService);
  const heldAtEnd = await admin.zcount(holdersKey, `(${await serverMs(admin)}`, '+inf');
  const fresh = [];
  for (let i = 0; i <= PERMITS; i++) fresh.push(await semaphores.tryAcquire(resource, PERMITS, { ttlMs: 5000 }));
  const granted = fresh.filter((p) => p !== null);
  await Promise.all(granted.map((p) => p!.release()));
  await app.close();

  const sum = (values: number[]): number => values.reduce((s, v) => s + v, 0);
  const steadyAcquired = sum(steady.map((s) => s.acquired));
  const problems = [...steady, ...loadSummaries].reduce((s, r) => s + r.failures + r.lost, 0);
  const maxKill = Math.max(...killStats.map((s) => Number(s.max ?? 0)));
  const overKill = sum(killStats.map((s) => Number(s.over ?? 0)));
  const entriesKill = sum(killStats.map((s) => Number(s.entries ?? 0)));
  const takeoverBound = PERMIT_TTL_MS + MAX_RETRY_DELAY_MS + SEM_SLACK_MS;
  Object.assign(context.figures, {
    semaphore: { steady, steadyStats, killStats, killRounds, loadSummaries, heldAtEnd, grantedAtEnd: granted.length },
  });
  return [
    check(
      'semaphore',
      `${SEM_PROCESSES * SEM_CONTENDERS} contenders in ${SEM_PROCESSES} processes on a ${PERMITS}-permit semaphore: never more than ${PERMITS} holders at once (occupancy recorded in Redis by the holders)`,
      `most at once ${steadyStats.max}, over-occupied entries ${steadyStats.over ?? 0} in ${steadyStats.entries} holds (${steadyAcquired} of ${total} acquired; failures or lost permits ${sum(steady.map((s) => s.failures + s.lost))})`,
      Number(steadyStats.over ?? 0) === 0 &&
        Number(steadyStats.max) === PERMITS &&
        steadyAcquired === total &&
        Number(steadyStats.entries) === total,
    ),
    check(
      'semaphore',
      `around SIGKILLs of holders: still never more than ${PERMITS} (a killed holder counted until its permit could first have expired, kill + TTL × ${(1 - AUTO_EXTEND_RATIO).toFixed(2)} − ${DEAD_MARGIN_MS} ms)`,
      `most at once ${maxKill}, over-occupied entries ${overKill} in ${entriesKill} holds over ${rounds} round(s); failures or lost permits ${problems - sum(steady.map((s) => s.failures + s.lost))}`,
      overKill === 0 && maxKill <= PERMITS && entriesKill > 0 && problems === 0,
    ),
    check(
      'semaphore',
      `0 permits leaked after SIGKILL: ${PERMIT_TTL_MS + 100} ms after the kill (TTL ${PERMIT_TTL_MS} ms) the holder set has live holders only`,
      killRounds
        .map(
          (r) =>
            `killed ${r.victims} processes holding ${r.deadPermits} permits: unexpired dead permits ${r.leaked}; set then ${r.liveAfter} live, ${r.expiredNotPruned} expired not yet pruned`,
        )
        .join('; '),
      killRounds.every((r) => r.deadPermits > 0 && r.leaked === 0),
    ),
    check(
      'semaphore',
      `the killed holders' permits are granted again: ${PERMITS} live holders within TTL + backoff step + ${SEM_SLACK_MS} ms (${takeoverBound} ms) of the kill`,
      killRounds.map((r) => (r.fullMs === undefined ? 'never full again' : ms(r.fullMs))).join(', '),
      killRounds.every((r) => r.fullMs !== undefined && r.fullMs <= takeoverBound),
    ),
    check(
      'semaphore',
      `after every holder stopped or died: 0 permits held, ${PERMITS} new permits granted at once, a ${PERMITS + 1}th refused`,
      `held ${heldAtEnd}; granted ${granted.length} of ${PERMITS + 1} asked`,
      heldAtEnd === 0 && granted.length === PERMITS && fresh[PERMITS] === null,
    ),
    figure(
      'semaphore',
      'acquire latency under contention (32 contenders, 3 permits)',
      `p50 ${Math.max(...steady.map((s) => s.p50))} ms, p99 ${Math.max(...steady.map((s) => s.p99))} ms per process (worst)`,
    ),
  ];
}

// ---------------------------------------------------------------------------------------------------------------
// Read-write lock: readers and writers in 4 processes.

const RW_PROCESSES = 4;
const RW_READERS = 6;
const RW_WRITERS = 2;

interface RwSummary {
  reads: number;
  writes: number;
  readFailures: number;
  writeFailures: number;
  lost: number;
  readWait: { p50: number; p99: number; max: number };
  writeWait: { p50: number; p99: number; max: number };
}

async function readWriteLock(context: ScenarioContext, url: string, admin: Redis): Promise<Check[]> {
  const data = 'fco-rwdata';
  const reads = context.quick ? 150 : 400;
  const writes = context.quick ? 15 : 40;
  const workers = Array.from({ length: RW_PROCESSES }, () =>
    spawnChild(context, 'rw-contender.ts', {
      REDIS_URL: url,
      KEY_PREFIX: 'fco-rw',
      DATA_PREFIX: data,
      RESOURCE: 'catalog',
      READERS: String(RW_READERS),
      WRITERS: String(RW_WRITERS),
      TTL_MS: '2000',
    }),
  );
  await Promise.all(workers.map((w) => w.waitForLine(/^ready$/, 60_000)));
  context.log(`read-write lock: ${RW_PROCESSES} × (${RW_READERS} readers + ${RW_WRITERS} writers)`);
  workers.forEach((w) => w.send(`go ${reads} ${writes}`));
  const results = (await Promise.all(workers.map((w) => w.waitForLine(/^done (.*)$/, 90_000)))).map((m) => JSON.parse(m[1]) as RwSummary);
  workers.forEach((w) => w.send('exit'));
  await Promise.all(workers.map((w) => Promise.race([w.exited, pause(10_000)])));
  const stats = await admin.hgetall(`${data}:stats`);
  const readCount = Number(stats.reads ?? 0);
  const writeCount = Number(stats.writes ?? 0);
  const violations = Number(stats.violations ?? 0);
  const failures = results.reduce((s, r) => s + r.readFailures + r.writeFailures + r.lost, 0);
  const worst = (pick: (r: RwSummary) => number): number => Math.max(...results.map(pick));
  Object.assign(context.figures, { readWriteLock: { stats, results } });
  return [
    check(
      'read-write lock',
      `readers and writers in ${RW_PROCESSES} processes (${RW_PROCESSES * RW_READERS} readers, ${RW_PROCESSES * RW_WRITERS} writers): a writer never overlaps a reader or another writer (occupancy recorded in Redis by the holders)`,
      `overlaps with a writer ${violations} in ${readCount} reads and ${writeCount} writes (of ${reads * RW_PROCESSES} and ${writes * RW_PROCESSES}); failures or lost leases ${failures}`,
      violations === 0 && readCount === reads * RW_PROCESSES && writeCount === writes * RW_PROCESSES && failures === 0,
    ),
    figure(
      'read-write lock',
      'reader overlap (readers share the lock)',
      `most readers at once ${stats['max-readers']}; reads that found another reader inside ${stats['reads-shared'] ?? 0} of ${readCount} (${Math.round((100 * Number(stats['reads-shared'] ?? 0)) / Math.max(1, readCount))}%); mean readers inside at a read's entry ${(Number(stats['reader-sum']) / Math.max(1, readCount)).toFixed(2)}`,
    ),
    figure(
      'read-write lock',
      'waits under writer preference (worst process)',
      `write p50 ${worst((r) => r.writeWait.p50)} ms, p99 ${worst((r) => r.writeWait.p99)} ms, max ${worst((r) => r.writeWait.max)} ms; read p50 ${worst((r) => r.readWait.p50)} ms, p99 ${worst((r) => r.readWait.p99)} ms, max ${worst((r) => r.readWait.max)} ms`,
    ),
  ];
}

// ---------------------------------------------------------------------------------------------------------------
// Leader election: three candidate processes; the leader SIGSTOPped past its lease, or SIGKILLed.

const TTL_MS = 1000;
const RENEW_EVERY_MS = 250;
const WRITE_EVERY_MS = 50;
const FREEZE_MS = 2500;
const LEADER_SLACK_MS = 200;
/** A careful write delivered this much later than its check was in flight across a SIGSTOP (the freeze is 2.5 s). */
const IN_FLIGHT_MS = 1000;

interface LogEntry {
  at: number;
  token: number;
  accepted: boolean;
  kind: string;
  writer: string;
  decidedAt: number;
}

async function leaderElection(context: ScenarioContext, url: string, admin: Redis): Promise<Check[]> {
  const data = 'fco-leaderdata';
  const faults: Array<'SIGSTOP' | 'SIGKILL'> = context.quick ? ['SIGSTOP', 'SIGKILL'] : ['SIGSTOP', 'SIGKILL', 'SIGSTOP', 'SIGKILL'];
  let serial = 0;
  const spawn = (): TsChild =>
    spawnChild(context, 'leader-candidate.ts', {
      REDIS_URL: url,
      KEY_PREFIX: 'fco-leader',
      DATA_PREFIX: data,
      RESOURCE: 'reports',
      NAME: `c${serial++}`,
      TTL_MS: String(TTL_MS),
      RENEW_EVERY_MS: String(RENEW_EVERY_MS),
      WRITE_EVERY_MS: String(WRITE_EVERY_MS),
    });
  const candidates = [spawn(), spawn(), spawn()];
  await Promise.all(candidates.map((c) => c.waitForLine(/^campaigning$/, 60_000)));
  const alive = (): TsChild[] => candidates.filter((c) => c.running);
  /** The candidate whose latest term line is a gain, with that term's token. */
  const leading = (c: TsChild): number | undefined => {
    for (let i = c.lines.length - 1; i >= 0; i--) {
      const m = /^(gained|ended) (\d+)/.exec(c.lines[i]);
      if (m) return m[1] === 'gained' ? Number(m[2]) : undefined;
    }
    return undefined;
  };
  /** Exactly one leader, and its term has written to the fenced store. */
  const stableLeader = async (): Promise<{ child: TsChild; token: number }> => {
    let found: { child: TsChild; token: number } | undefined;
    await waitUntil(
      async () => {
        const leaders = alive().filter((c) => leading(c) !== undefined);
        if (leaders.length !== 1) return false;
        found = { child: leaders[0], token: leading(leaders[0])! };
        return Number(await admin.get(`${data}:fence`)) === found.token;
      },
      TTL_MS * 10,
      'one leader writing',
    );
    return found!;
  };

  const takeovers: Array<{ fault: string; ms: number; firstWriteMs: number }> = [];
  const resumed: Array<{ accepted: number; active: string; abortedFirst: string; abortMs: number; reason: string }> = [];
  for (const fault of faults) {
    const { child: leader, token } = await stableLeader();
    const marks = new Map(candidates.map((c) => [c, c.lines.length]));
    const faultMs = await serverMs(admin);
    const faultAt = now();
    leader.signal(fault);
    let gained: { match: RegExpMatchArray; at: number } | undefined;
    await waitUntil(
      () => {
        for (const c of alive()) if (c !== leader) gained ??= lineAfter(c, marks.get(c)!, /^gained (\d+)$/);
        return gained !== undefined;
      },
      TTL_MS * 10,
      'a follower to take over',
    );
    const newToken = Number(gained!.match[1]);
    await waitUntil(async () => Number(await admin.get(`${data}:fence`)) === newToken, 5000, "the new leader's first write");
    const firstWrite = (await admin.lrange(`${data}:log`, 0, -1)).find((line) => line.split(' ')[1] === String(newToken));
    takeovers.push({ fault, ms: gained!.at - faultAt, firstWriteMs: Number(firstWrite?.split(' ')[0]) - faultMs });
    context.log(`leader: ${fault} of the leader (token ${token}): new term ${newToken} after ${Math.round(gained!.at - faultAt)} ms`);
    if (fault === 'SIGSTOP') {
      await waitUntil(() => now() - faultAt >= FREEZE_MS, FREEZE_MS + 1000, 'the freeze to last');
      const mark = leader.lines.length;
      leader.send('naive');
      leader.signal('SIGCONT');
      await waitUntil(() => lineAfter(leader, mark, /^naive /) !== undefined, 10_000, 'the resumed leader to write');
      const [, accepted, active, abortedFirst, abortMs, reason] = lineAfter(leader, mark, /^naive (\d) (\S+) (\S+) (\d+) (\S+)$/)!.match;
      resumed.push({ accepted: Number(accepted), active, abortedFirst, abortMs: Number(abortMs), reason });
    } else {
      await leader.exited;
      const replacement = spawn();
      candidates.push(replacement);
      await replacement.waitForLine(/^campaigning$/, 60_000);
    }
  }
  await stableLeader();
  await pause(RENEW_EVERY_MS);
  alive().forEach((c) => c.send('exit'));
  await Promise.all(alive().map((c) => Promise.race([c.exited, pause(10_000)])));

  // The fenced store's log, in the order the store saw the writes.
  const log: LogEntry[] = (await admin.lrange(`${data}:log`, 0, -1)).map((line) => {
    const [at, token, accepted, , kind, writer, decidedAt] = line.split(' ');
    return { at: Number(at), token: Number(token), accepted: accepted === '1', kind, writer, decidedAt: Number(decidedAt) };
  });
  // Each writer's monotonic clock against the server's: the smallest (server time − decision time) of its writes.
  const offsets = new Map<string, number>();
  for (const e of log) offsets.set(e.writer, Math.min(offsets.get(e.writer) ?? Infinity, e.at - e.decidedAt));
  let highest = 0;
  let staleAttempts = 0;
  let staleAccepted = 0;
  let carefulRefused = 0;
  let inFlightRefused = 0;
  const terms = new Set<number>();
  for (const e of log) {
    if (e.token < highest) {
      staleAttempts++;
      if (e.accepted) staleAccepted++;
    }
    if (e.kind === 'careful' && !e.accepted) {
      if (e.at - e.decidedAt - offsets.get(e.writer)! > IN_FLIGHT_MS) inFlightRefused++;
      else carefulRefused++;
    }
    if (e.accepted) {
      highest = Math.max(highest, e.token);
      terms.add(e.token);
    }
  }
  const careful = log.filter((e) => e.kind === 'careful').length;
  const stops = faults.filter((f) => f === 'SIGSTOP').length;
  const bound = TTL_MS + RENEW_EVERY_MS + LEADER_SLACK_MS;
  const list = (fault: string): string =>
    takeovers
      .filter((t) => t.fault === fault)
      .map((t) => ms(t.ms))
      .join(', ');
  Object.assign(context.figures, {
    leaderElection: {
      takeovers,
      resumed,
      writes: log.length,
      careful,
      carefulRefused,
      inFlightRefused,
      staleAttempts,
      staleAccepted,
      terms: terms.size,
    },
  });
  return [
    check(
      'leader election',
      'at most one leader with a valid token at a time: writes made after checking term.isActive, with the term’s fencing token, refused by the fenced store 0',
      `${careful} careful writes over ${terms.size} terms (3 candidate processes, ${faults.length} faults): refused ${carefulRefused}` +
        ` (+${inFlightRefused} sent just before a SIGSTOP and delivered after it, refused as stale)`,
      carefulRefused === 0 && terms.size >= faults.length + 1,
    ),
    check(
      'leader election',
      'stale writes accepted by the fenced store 0: a leader SIGSTOPped past its lease writes with its old token on SIGCONT, and is refused',
      `stale attempts ${staleAttempts}, accepted ${staleAccepted}; resumed leaders' writes accepted ${resumed.filter((r) => r.accepted).length} of ${resumed.length}`,
      staleAccepted === 0 && resumed.length === stops && resumed.every((r) => r.accepted === 0),
    ),
    check(
      'leader election',
      'a leader resumed after a SIGSTOP past its lease: term.isActive is false at its first read',
      resumed.map((r) => `${r.active} (signal ${r.abortedFirst} before that read; term ended ${r.reason})`).join('; '),
      resumed.length === stops && resumed.every((r) => r.active === 'ended'),
    ),
    check(
      'leader election',
      `takeover ≤ lease + one renewal interval + ${LEADER_SLACK_MS} ms for this 2-core machine (${TTL_MS} + ${RENEW_EVERY_MS} + ${LEADER_SLACK_MS} = ${bound} ms) after SIGSTOP or SIGKILL of the leader`,
      `SIGSTOP: ${list('SIGSTOP')}; SIGKILL: ${list('SIGKILL')}`,
      takeovers.length === faults.length && takeovers.every((t) => t.ms <= bound),
    ),
    figure(
      'leader election',
      "from the fault to the new leader's first accepted write (server clock)",
      takeovers.map((t) => `${t.fault} ${ms(t.firstWriteMs)}`).join(', '),
    ),
  ];
}

// ---------------------------------------------------------------------------------------------------------------
// Idempotency: 100 concurrent duplicates against 2 application processes.

const DUPLICATES = 100;
const HANDLER_MS = 200;
const agent = new Agent({ keepAlive: true, maxSockets: 256 });

interface Answer {
  status: number;
  replayed: boolean;
  body: string;
  ms: number;
  error?: string;
}

function post(port: number, path: string, key: string, body: unknown): Promise<Answer> {
  const payload = JSON.stringify(body);
  const startedAt = now();
  return new Promise((resolve) => {
    const done = (answer: Omit<Answer, 'ms'>): void => resolve({ ...answer, ms: now() - startedAt });
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), 'idempotency-key': key },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => done({ status: res.statusCode ?? 0, replayed: res.headers['idempotent-replayed'] === 'true', body: text }));
        res.on('error', (error) => done({ status: 0, replayed: false, body: text, error: error.message }));
      },
    );
    req.setTimeout(20_000, () => req.destroy(new Error('client timeout')));
    req.on('error', (error) => done({ status: 0, replayed: false, body: '', error: error.message }));
    req.end(payload);
  });
}

async function idempotency(context: ScenarioContext, url: string, admin: Redis): Promise<Check[]> {
  const data = 'fco-idemdata';
  const apps = [0, 1].map(() =>
    spawnChild(context, 'idempotent-app.ts', { REDIS_URL: url, KEY_PREFIX: 'fco-idem', DATA_PREFIX: data, HANDLER_MS: String(HANDLER_MS) }),
  );
  const ports = (await Promise.all(apps.map((a) => a.waitForLine(/^listening (\d+)$/, 60_000)))).map((m) => Number(m[1]));
  const keysPerRoute = context.quick ? 2 : 5;
  context.log(`idempotency: ${keysPerRoute} keys per route × ${DUPLICATES} duplicates over 2 processes`);
  const rounds: Array<{
    route: string;
    runs: number;
    stored: number;
    replayed: number;
    fresh: number;
    conflicts: number;
    other: string[];
    sameBody: boolean;
    ms: number[];
  }> = [];
  for (const route of ['pay', 'pay-reject']) {
    for (let k = 0; k < keysPerRoute; k++) {
      const key = randomUUID();
      const body = { amount: 10 + k };
      const answers = await Promise.all(Array.from({ length: DUPLICATES }, (_, i) => post(ports[i % 2], `/${route}`, key, body)));
      const runs = Number(await admin.get(`${data}:runs:${route}:${key}`));
      const ok = answers.filter((a) => a.status === 201);
      const conflicts = answers.filter((a) => a.status === 409).length;
      const other = answers.filter((a) => a.status !== 201 && a.status !== 409).map((a) => `${a.status}${a.error ? ` ${a.error}` : ''}`);
      const fresh = ok.filter((a) => !a.replayed);
      // The stored result: the answer of the one call that ran; every 2xx answer must carry exactly its body.
      const stored = fresh[0]?.body;
      const sameBody = stored !== undefined && ok.every((a) => a.body === stored) && (JSON.parse(stored) as { run: number }).run === 1;
      rounds.push({
        route,
        runs,
        stored: ok.length,
        replayed: ok.length - fresh.length,
        fresh: fresh.length,
        conflicts,
        other,
        sameBody,
        ms: answers.map((a) => a.ms),
      });
    }
  }
  apps.forEach((a) => a.send('exit'));
  await Promise.all(apps.map((a) => Promise.race([a.exited, pause(10_000)])));
  const of = (route: string) => rounds.filter((r) => r.route === route);
  const describe = (route: string): string => {
    const rs = of(route);
    return (
      `${route === 'pay' ? 'waiting duplicates' : "onConcurrent 'reject'"}: stored result ${rs.reduce((s, r) => s + r.stored, 0)} ` +
      `(${rs.reduce((s, r) => s + r.replayed, 0)} replayed), 409 ${rs.reduce((s, r) => s + r.conflicts, 0)}, ` +
      `other ${rs.reduce((s, r) => s + r.other.length, 0)}${rs.flatMap((r) => r.other).length ? ` (${[...new Set(rs.flatMap((r) => r.other))].slice(0, 3).join('; ')})` : ''}` +
      `${rs.every((r) => r.sameBody) ? '' : `; ${rs.filter((r) => !r.sameBody).length} keys with another body`}`
    );
  };
  Object.assign(context.figures, {
    idempotency: rounds.map(({ ms: times, ...r }) => ({ ...r, p50: percentile(times, 50), p99: percentile(times, 99) })),
  });
  return [
    check(
      'idempotency',
      `${DUPLICATES} concurrent duplicates (same key, same body) against 2 application processes (HTTP, @Idempotent): the handler ran once (counted by the handler in Redis)`,
      ['pay', 'pay-reject']
        .map(
          (route) =>
            `${route}: runs per key [${of(route)
              .map((r) => r.runs)
              .join(', ')}]`,
        )
        .join('; '),
      rounds.every((r) => r.runs === 1),
    ),
    check(
      'idempotency',
      'every answer is the stored result (the one run’s status and body; all but its own marked Idempotent-Replayed) or a 409',
      `${describe('pay')}; ${describe('pay-reject')}`,
      rounds.every((r) => r.other.length === 0 && r.sameBody && r.fresh === 1 && r.stored + r.conflicts === DUPLICATES),
    ),
    figure(
      'idempotency',
      'answer latency of 100 duplicates (handler 200 ms)',
      ['pay', 'pay-reject']
        .map((route) => {
          const times = of(route).flatMap((r) => r.ms);
          return `${route}: p50 ${percentile(times, 50)} ms, p99 ${percentile(times, 99)} ms`;
        })
        .join('; '),
    ),
  ];
}

export const coordinationScenario: Scenario = {
  id: 'COORDINATION',
  title: 'semaphores, read-write locks, leader election and idempotency keys across processes; holders SIGKILLed, leaders SIGSTOPped',
  // Usually 14 s quick and 26 s full; the suite's budgets (run.ts) leave room for no more than these.
  deadlineMs: 45_000,
  quickDeadlineMs: 40_000,
  async run(context) {
    const server = await ownStandalone(context, 'coordination');
    const admin = new Redis(server.url);
    context.defer(() => admin.disconnect());
    const checks: Check[] = [];
    checks.push(...(await semaphore(context, server.url, admin)));
    checks.push(...(await readWriteLock(context, server.url, admin)));
    checks.push(...(await leaderElection(context, server.url, admin)));
    checks.push(...(await idempotency(context, server.url, admin)));
    const noTtl = await keysWithoutTtl(admin, 'fco-*');
    checks.push(
      check(
        '§5 TTL',
        'every key the four patterns left has a TTL',
        `keys without TTL ${noTtl.length}${noTtl.length ? ` (${noTtl.slice(0, 3).join(', ')})` : ''}`,
        noTtl.length === 0,
      ),
    );
    return checks;
  },
};

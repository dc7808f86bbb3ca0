// Write-behind caching across an instance crash and a Redis restart: nothing acknowledged is lost, a key's changes
// reach the writer in order, every duplicate repeats a save that was not settled, nothing is dead-lettered below
// maxAttempts, and no key is left without a TTL but the partition streams and pending change records.
// A private server with AOF (appendfsync always: an acknowledged write survives the restart) and two instance
// processes (test/fixtures/faults/write-behind-instance.ts) whose writer saves to a table on a second private server
// and fails 30 % of its calls, half of them after saving. The scenario drives WRITES writes over KEYS keys, each key
// written by one process at a time with an increasing `seq`, so "the last acknowledged write" of a key is the one
// with the highest acknowledged seq. Partway through, one instance is SIGKILLed inside a writer call (after saving
// half of its batch) and the survivor takes its keys over; later Redis is shut down and started again from its AOF.
// The keys each fault could lose are written no more after it (see `frozen`): with `appendonly no`, the keys frozen
// at the shutdown whose changes were not flushed yet end behind their last acknowledged write, and the check fails.
import { Redis } from 'ioredis';
import { WriteBehindService, type WriteBehindStats } from 'nestjs-redis-patterns';
import { isDocumentedException } from '../../../libs/redis-patterns/src/health/doctor/keys-without-ttl';
import { SOURCE_KEYS, type SourceValue } from '../../fixtures/faults/write-behind-source';
import { CaptureLogger } from '../lib/capture-logger';
import { TsChild } from '../lib/child';
import { now, pause, waitUntil } from '../lib/measure';
import { check, type Check, figure, type Scenario, type ScenarioContext } from '../lib/scenario';
import { keysWithoutTtl, ownApp, ownStandalone, scanAll } from '../lib/servers';

const PREFIX = 'fwb';
const QUEUE = 'orders';
const KEYS = 200;
const FAIL_RATE = 0.3;
/**
 * maxRetryDelayMs bounds how long a partition waits after writer failures in a row: at 30 % a streak of nine is rare
 * but comes up over many runs, and with the default cap (60 s) its wait alone (25.6 s) outlasts the drain deadline.
 */
const SETTINGS = {
  partitions: 8,
  batchSize: 50,
  delayMs: 100,
  retryDelayMs: 100,
  maxRetryDelayMs: 1000,
  maxAttempts: 50,
  leaseTtlMs: 2000,
};
/**
 * An announcement whose write never landed holds its partition back until it is given up, twice its landing time
 * (10 s) after it was made: a drain may wait that long, plus a lease and a retry or two.
 */
const DRAIN_MS = 25_000;
/** How long Redis stays down between its shutdown and its restart. */
const DOWN_MS = 1000;
/** Most keys frozen at the restart, so that most keys are still written after it. */
const MAX_RESTART_FROZEN = 60;

type Outcome = 'ok' | 'err' | 'killed';

interface WriterCall {
  id: string;
  outcome: 'ok' | 'fail-before' | 'fail-after' | 'killed';
  changes: number;
  saved: number;
  startMs: number;
  /** When it returned or threw (the kill, for the killed call). */
  endMs: number;
  keys: string[];
}

/** One instance process and the writes it was asked for, resolved from its protocol lines. */
class Instance {
  readonly child: TsChild;
  readonly calls: WriterCall[] = [];
  readonly warnings: Array<{ at: number; message: string }> = [];
  readonly errors: string[] = [];
  midFlush?: WriterCall;
  stats?: WriteBehindStats;
  dead = false;
  private readonly waiting = new Map<string, (outcome: Outcome) => void>();
  private readonly messages = new Map<string, string>();

  constructor(
    readonly name: string,
    env: Record<string, string>,
    onMidFlush: () => void,
  ) {
    this.child = new TsChild('test/fixtures/faults/write-behind-instance.ts', { ...env, NAME: name });
    this.child.onLine((line) => {
      const [kind, ...rest] = line.split(' ');
      if (kind === 'ok' || kind === 'err') {
        const id = `${rest[0]} ${rest[1]}`;
        if (kind === 'err') this.messages.set(id, rest.slice(2).join(' '));
        this.waiting.get(id)?.(kind);
        this.waiting.delete(id);
      } else if (kind === 'call') {
        const [id, outcome, changes, saved, startMs, endMs, keys] = rest;
        this.calls.push({
          id,
          outcome: outcome as WriterCall['outcome'],
          changes: +changes,
          saved: +saved,
          startMs: +startMs,
          endMs: +endMs,
          keys: keys.split(','),
        });
      } else if (kind === 'mid-flush') {
        const [id, changes, saved, startMs, keys] = rest;
        this.midFlush = {
          id,
          outcome: 'killed',
          changes: +changes,
          saved: +saved,
          startMs: +startMs,
          endMs: Number.NaN,
          keys: keys.split(','),
        };
        this.calls.push(this.midFlush);
        onMidFlush();
      } else if (kind === 'warn') this.warnings.push({ at: +rest[0], message: rest.slice(1).join(' ') });
      else if (kind === 'error') this.errors.push(rest.slice(1).join(' '));
      else if (kind === 'stats') this.stats = JSON.parse(rest.join(' ')) as WriteBehindStats;
    });
    // Whatever a killed process had in flight was never acknowledged.
    void this.child.exited.then(() => {
      for (const resolve of this.waiting.values()) resolve('killed');
      this.waiting.clear();
    });
  }

  write(key: string, seq: number): Promise<Outcome> {
    if (!this.child.running) return Promise.resolve('killed');
    return new Promise((resolve) => {
      this.waiting.set(`${key} ${seq}`, resolve);
      this.child.send(`w ${key} ${seq}`);
    });
  }

  rejection(key: string, seq: number): string | undefined {
    return this.messages.get(`${key} ${seq}`);
  }
}

interface Attempt {
  key: string;
  seq: number;
  instance: string;
  outcome: Outcome;
}

async function writeBehindCrash(context: ScenarioContext): Promise<Check[]> {
  const WRITES = 5000;
  const RATE = context.quick ? 500 : 250;
  const KILL_AT = 0.3;
  const RESTART_AT = 0.6;

  const server = await ownStandalone(context, 'write-behind', ['--appendonly', 'yes', '--appendfsync', 'always']);
  const sourceServer = await ownStandalone(context, 'source');
  const admin = new Redis(server.url, { maxRetriesPerRequest: 1 });
  // The server goes down on purpose; the reconnection's errors are not news.
  admin.on('error', () => undefined);
  const table = new Redis(sourceServer.url);
  context.defer(() => admin.disconnect());
  context.defer(() => table.disconnect());
  const logger = new CaptureLogger();
  const app = await ownApp(context, { connection: server.url, keyPrefix: PREFIX, writeBehind: SETTINGS, logger });
  const writeBehind = app.get(WriteBehindService);

  const env = {
    REDIS_URL: server.url,
    SOURCE_URL: sourceServer.url,
    KEY_PREFIX: PREFIX,
    QUEUE,
    FAIL_RATE: String(FAIL_RATE),
    DB_MS: '5',
    ENTRY_TTL_MS: '600000',
    WRITE_BEHIND: JSON.stringify(SETTINGS),
  };
  // Keys no longer written from a fault on, so their last acknowledged write is one the fault could have lost: the
  // keys of the batch the victim was killed with, and those with a change pending when Redis was shut down. Every
  // other key is written again after both faults, and a newer write would hide a lost one.
  const frozen = new Map<string, 'kill' | 'restart'>();
  let killedAt: number | undefined;
  const killVictim = (): void => {
    if (victim.dead) return;
    victim.dead = true;
    killedAt = Date.now();
    victim.child.signal('SIGKILL');
    if (!victim.midFlush) return;
    victim.midFlush.endMs = killedAt;
    for (const key of victim.midFlush.keys) frozen.set(key, 'kill');
  };
  const victim: Instance = new Instance('a', env, killVictim);
  const survivor = new Instance('b', env, () => undefined);
  const instances = [victim, survivor];
  instances.forEach((instance) => context.defer(() => instance.child.kill()));
  await Promise.all(instances.map((instance) => instance.child.waitForLine(/^ready$/, 30_000)));
  context.log('both instances ready');

  const keys = Array.from({ length: KEYS }, (_, i) => `item:${i}`);
  const attempts: Attempt[] = [];
  const lastAcked = new Map<string, number>();
  const pendingKeys = async (): Promise<Map<string, number>> => {
    const counts = new Map<string, number>();
    for (const stream of await scanAll(admin, `${PREFIX}:write-behind:{*`)) {
      for (const [, fields] of await admin.xrange(stream, '-', '+')) {
        const key = fields[fields.indexOf('k') + 1];
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
    }
    return counts;
  };
  let budget = WRITES;
  let slots = 0;
  let armedAt: number | undefined;
  let restart: Promise<void> | undefined;
  let stoppedAt: number | undefined;
  let upAt: number | undefined;
  const carried = { keys: 0, announcements: 0 };
  const restartRedis = async (): Promise<void> => {
    // The survivor's writer fails every call from here until the restarted server has been read, so what is pending
    // when it is read below is still pending at the shutdown: the restart must bring those changes back from the
    // AOF, or the check fails.
    survivor.child.send('hold');
    await survivor.child.waitForLine(/^held$/, 10_000);
    const pending = await pendingKeys();
    const candidates = [...pending.keys()].filter((key) => !frozen.has(key)).slice(0, MAX_RESTART_FROZEN);
    for (const key of candidates) frozen.set(key, 'restart');
    stoppedAt = Date.now();
    await server.stop();
    await pause(DOWN_MS);
    await server.restart();
    upAt = Date.now();
    // Of the frozen keys' changes pending at the shutdown, those not flushed yet are in the restarted server only if
    // its AOF kept them.
    let after = new Map<string, number>();
    try {
      await waitUntil(async () => ((after = await pendingKeys()), true), 5000, 'the restarted server to answer');
    } finally {
      survivor.child.send('release');
    }
    const still = candidates.filter((key) => after.has(key));
    carried.keys = still.length;
    carried.announcements = still.reduce((sum, key) => sum + after.get(key)!, 0);
    context.log(
      `Redis restarted from its AOF, ${upAt - stoppedAt} ms down; ${carried.keys} of ${candidates.length} frozen keys still pending after it`,
    );
  };
  const started = now();
  const chain = async (k: number): Promise<void> => {
    const key = keys[k];
    for (let seq = 1; ; seq++) {
      if (frozen.has(key) || budget <= 0 || context.signal.aborted) return;
      await pause(Math.max(0, started + (slots++ * 1000) / RATE - now()));
      if (frozen.has(key) || budget <= 0 || context.signal.aborted) return;
      const done = WRITES - --budget;
      if (done >= KILL_AT * WRITES && armedAt === undefined) {
        armedAt = Date.now();
        victim.child.send('arm');
      }
      if (done >= RESTART_AT * WRITES && restart === undefined) restart = restartRedis();
      // Each key belongs to one process at a time: a's keys move to b once a is dead and its writes settled.
      const instance = victim.dead || k % 2 === 1 ? survivor : victim;
      const outcome = await instance.write(key, seq);
      attempts.push({ key, seq, instance: instance.name, outcome });
      if (outcome === 'ok') lastAcked.set(key, seq);
    }
  };
  const writing = Promise.all(keys.map((_, k) => chain(k)));
  await waitUntil(() => armedAt !== undefined, 60_000, 'the kill to be armed');
  // The victim is killed from its own `mid-flush` line; if it never enters a writer call, it is killed anyway and
  // the scenario says so.
  await waitUntil(() => victim.dead, 10_000, 'the victim to enter a writer call').catch(() => {
    context.log('the victim entered no writer call: killed outside one');
    killVictim();
  });
  await victim.child.exited;
  context.log(`victim killed ${killedAt! - armedAt!} ms after arming, ${victim.midFlush ? 'mid-flush' : 'not in a writer call'}`);
  await writing;
  await restart;
  context.log(`${attempts.length} writes issued, ${attempts.filter((a) => a.outcome === 'ok').length} acknowledged`);

  let pendingLeft = Number.NaN;
  const drainMs = await waitUntil(
    async () => (pendingLeft = await writeBehind.pending(QUEUE)) === 0,
    DRAIN_MS,
    'every change to be settled',
  ).catch(() => Number.NaN);
  context.log(
    `pending ${pendingLeft} ${Number.isNaN(drainMs) ? `after ${DRAIN_MS} ms` : `reached 0 ${Math.round(drainMs)} ms after the last write`}`,
  );
  // Should changes be left, what holds them: each partition's head, its keys' change records, the leases, and the
  // flushers' last warnings (a writer's retry wait is in them).
  let diagnosis = '';
  if (pendingLeft !== 0) diagnosis = await diagnose(admin, survivor, { stoppedAt, upAt, killedAt });
  survivor.child.send('stats');
  await survivor.child.waitForLine(/^stats /, 5000).catch(() => undefined);
  survivor.child.send('exit');
  await survivor.child.waitForLine(/^closed$/, 15_000).catch(() => context.log('the survivor did not close in time'));

  // What the data source holds, against what was acknowledged and what the cache holds.
  const rows = await Promise.all(
    keys.map(async (key) => {
      const [version, value] = await table.hmget(SOURCE_KEYS.row(key), 'v', 'value');
      return { key, version, value: value === null ? undefined : (JSON.parse(value) as SourceValue) };
    }),
  );
  const cached = await Promise.all(keys.map((key) => writeBehind.get<SourceValue>(key)));
  const outcomeOf = new Map(attempts.map((a) => [`${a.key} ${a.seq}`, a.outcome]));
  const missing = rows.filter((row) => row.value === undefined).map((row) => row.key);
  const behind = rows.filter((row) => row.value !== undefined && row.value.seq < (lastAcked.get(row.key) ?? 0));
  const atLast = rows.filter((row) => row.value !== undefined && row.value.seq === lastAcked.get(row.key)).length;
  const ahead = rows.filter((row) => row.value !== undefined && row.value.seq > (lastAcked.get(row.key) ?? 0));
  const aheadUnexplained = ahead.filter((row) => !['err', 'killed'].includes(outcomeOf.get(`${row.key} ${row.value!.seq}`) ?? ''));
  const lost = missing.length + behind.length;
  const lostKeys = new Set([...missing, ...behind.map((row) => row.key)]);
  const group = (kind: 'kill' | 'restart' | undefined): string => {
    const members = keys.filter((key) => frozen.get(key) === kind);
    return `${members.filter((key) => lostKeys.has(key)).length} of ${members.length}`;
  };
  const disagree = rows.flatMap((row, i) => (row.value?.seq === cached[i]?.seq ? [] : [`${row.key}: ${row.value?.seq}≠${cached[i]?.seq}`]));

  const [applied, distinct, older, same, log] = await Promise.all([
    table.get(SOURCE_KEYS.applied).then(Number),
    table.scard(SOURCE_KEYS.distinct),
    table.get(SOURCE_KEYS.older).then(Number),
    table.get(SOURCE_KEYS.same).then(Number),
    table.lrange(SOURCE_KEYS.log, 0, -1),
  ]);
  const duplicates = applied - distinct;
  const calls = instances.flatMap((instance) => instance.calls);
  const callById = new Map(calls.map((call) => [call.id, call]));
  const instanceOf = (call: WriterCall): Instance => (call.id.startsWith(`${victim.name}:`) ? victim : survivor);
  const restartWindow = { from: stoppedAt ?? Number.NaN, to: (upAt ?? Number.NaN) + SETTINGS.leaseTtlMs };
  // A change is handed to a writer again only while it is not settled. Each duplicate upsert is traced to the save
  // it repeats (the previous upsert of that key and version): the writer threw after saving, its process was killed
  // in the call, its settlement failed (a flush failure logged after it), or the two calls ran at once (two holders
  // of the partition's lease, which only a lease running out while Redis was down explains).
  const causes = { afterThrow: 0, afterKill: 0, afterSettleFailure: 0, concurrentAroundRestart: 0, unexplained: 0 };
  const unexplained: string[] = [];
  const previous = new Map<string, WriterCall>();
  for (const entry of log) {
    const [key, version, id] = entry.split('|');
    const call = callById.get(id);
    const before = previous.get(`${key}|${version}`);
    if (call) previous.set(`${key}|${version}`, call);
    if (!before) continue;
    if (before.outcome === 'fail-after') causes.afterThrow++;
    else if (before.outcome === 'killed') causes.afterKill++;
    else if (call && before.endMs >= call.startMs) {
      const aroundRestart = call.startMs <= restartWindow.to && before.endMs >= restartWindow.from;
      if (aroundRestart) causes.concurrentAroundRestart++;
      else {
        causes.unexplained++;
        unexplained.push(`${key}@${version} by ${before.id} then ${id} at once`);
      }
    } else if (
      call &&
      instanceOf(before).warnings.some((w) => /flush of .* failed/.test(w.message) && w.at >= before.endMs && w.at <= call.startMs)
    )
      causes.afterSettleFailure++;
    else {
      causes.unexplained++;
      unexplained.push(`${key}@${version} by ${before.id} then ${id}`);
    }
  }
  const flushWarnings = instances.flatMap((i) => i.warnings).filter((w) => /flush of .* failed/.test(w.message));
  // Hand-over of the killed call's partition: the survivor's first writer call on any of its keys after the kill.
  const killedKeys = new Set(victim.midFlush?.keys ?? []);
  const takeover = survivor.calls.filter((c) => c.startMs >= (killedAt ?? Infinity) && c.keys.some((key) => killedKeys.has(key)));
  const takeoverMs = takeover.length > 0 ? Math.min(...takeover.map((c) => c.startMs)) - killedAt! : Number.NaN;
  const takeoverBoundMs = SETTINGS.leaseTtlMs + 1000;

  const deadLetterKey = `${PREFIX}:write-behind-dlq:${QUEUE}`;
  const deadLettered = await admin.xlen(deadLetterKey);
  const withoutTtl = await keysWithoutTtl(admin, `${PREFIX}:*`);
  const partitionStream = new RegExp(`^${PREFIX}:write-behind:\\{`);
  const unexpected = withoutTtl.filter((key) => !partitionStream.test(key) && !key.endsWith(':wb'));
  const doctorFlags = withoutTtl.filter((key) => !isDocumentedException(key, PREFIX));

  const acked = attempts.filter((a) => a.outcome === 'ok').length;
  const rejected = attempts.filter((a) => a.outcome === 'err');
  const inFlightAtKill = attempts.filter((a) => a.outcome === 'killed').length;
  const rejectionKinds = [
    ...new Set(
      rejected.map((a) =>
        instances
          .find((i) => i.name === a.instance)!
          .rejection(a.key, a.seq)
          ?.slice(0, 80),
      ),
    ),
  ].slice(0, 3);
  const stats = survivor.stats;
  const downMs = upAt !== undefined && stoppedAt !== undefined ? upAt - stoppedAt : Number.NaN;
  const callsBy = (outcome: WriterCall['outcome']): number => calls.filter((c) => c.outcome === outcome).length;
  const midFlush = victim.midFlush;

  context.figures.writeBehindCrash = {
    writes: attempts.length,
    keys: KEYS,
    ratePerSecond: RATE,
    acknowledged: acked,
    rejected: rejected.length,
    rejections: rejectionKinds,
    inFlightAtKill,
    kill: { armedToKillMs: killedAt! - armedAt!, changes: midFlush?.changes, saved: midFlush?.saved, takeoverMs },
    restart: { downMs, writesIssuedBefore: Math.round(RESTART_AT * WRITES), pendingAfter: carried },
    frozen: {
      kill: [...frozen.values()].filter((f) => f === 'kill').length,
      restart: [...frozen.values()].filter((f) => f === 'restart').length,
    },
    lost,
    missing: missing.length,
    atLastAcknowledged: atLast,
    aheadOfLastAcknowledged: ahead.length,
    disagreeWithCache: disagree.length,
    pendingLeft,
    drainMs: Math.round(drainMs),
    applied,
    distinct,
    duplicates,
    duplicateCauses: causes,
    unexplainedDuplicates: unexplained.slice(0, 5),
    sameVersionAgain: same,
    olderThanRow: older,
    writerCalls: { ok: callsBy('ok'), failBefore: callsBy('fail-before'), failAfter: callsBy('fail-after'), killed: callsBy('killed') },
    flushWarnings: flushWarnings.length,
    libraryErrors: instances.flatMap((i) => i.errors).slice(0, 3),
    survivorStats: stats,
    deadLettered,
    withoutTtl: withoutTtl.length,
    unexpectedWithoutTtl: unexpected.slice(0, 10),
    doctorWouldFlag: doctorFlags.length,
  };

  const faults = `${attempts.length} writes over ${KEYS} keys at ${RATE}/s from 2 instances, one SIGKILLed inside a writer call, Redis shut down for ${DOWN_MS / 1000} s and restarted from its AOF (appendfsync always), the writer failing ${FAIL_RATE * 100} % of calls`;
  return [
    check(
      'write-behind',
      `${faults}: lost 0 — every key in the data source at its last acknowledged write or later, the keys of the killed batch and those pending at the shutdown written no more`,
      `lost ${lost} of ${KEYS} keys (of the killed batch's ${group('kill')}, of those pending at the shutdown ${group('restart')}, of the others ${group(undefined)}; missing ${missing.length}, behind ${behind.length}${behind.length ? `, e.g. ${behind[0].key} at ${behind[0].value!.seq} < ${lastAcked.get(behind[0].key)}` : ''}); at the last acknowledged write ${atLast}, after it ${ahead.length} (a rejected or in-flight write that landed${aheadUnexplained.length ? `; ${aheadUnexplained.length} unexplained` : ''}); acknowledged ${acked}, rejected ${rejected.length}, in flight at the kill ${inFlightAtKill}; killed ${midFlush ? `mid-flush (${midFlush.saved} of ${midFlush.changes} changes saved)` : 'outside a writer call'}; Redis down ${downMs} ms, with changes of ${carried.keys} frozen keys still pending after it (${carried.announcements} announcements)`,
      lost === 0 && aheadUnexplained.length === 0 && midFlush !== undefined && !Number.isNaN(downMs) && carried.keys > 0,
    ),
    check(
      'write-behind',
      'the data source ends equal to the cache for every key (the value the last landed write left)',
      `${KEYS - disagree.length} of ${KEYS} equal${disagree.length ? `; e.g. ${disagree.slice(0, 3).join(', ')}` : ''}`,
      disagree.length === 0,
    ),
    check(
      'write-behind',
      `every change settled (pending 0 within ${DRAIN_MS / 1000} s of the last write) and none dead-lettered (maxAttempts ${SETTINGS.maxAttempts})`,
      `pending ${pendingLeft}${Number.isNaN(drainMs) ? '' : ` after ${Math.round(drainMs)} ms`}${diagnosis ? ` (${diagnosis})` : ''}; dead letters ${deadLettered}; survivor stats ${JSON.stringify(stats ?? {})}`,
      pendingLeft === 0 && deadLettered === 0 && (stats?.deadLettered ?? 0) === 0,
    ),
    check(
      'write-behind',
      `the killed instance's partition is flushed by the survivor within leaseTtlMs + 1 s (${takeoverBoundMs} ms) of the kill`,
      `first survivor writer call on the killed batch's keys ${Math.round(takeoverMs)} ms after the kill`,
      takeoverMs <= takeoverBoundMs,
    ),
    check(
      'write-behind',
      'every duplicate (an upsert of a key and version already applied) repeats a save that was not settled: the writer threw after saving, its process was killed in the call, its settlement failed, or a lease ran out while Redis was down',
      `duplicates ${duplicates} of ${applied} upserts: after a throw ${causes.afterThrow}, after the kill ${causes.afterKill}, after a failed settlement ${causes.afterSettleFailure}, concurrent around the restart ${causes.concurrentAroundRestart}, unexplained ${causes.unexplained}${unexplained.length ? ` (${unexplained.slice(0, 2).join('; ')})` : ''}`,
      causes.unexplained === 0 && log.length === applied,
    ),
    check(
      'write-behind',
      "a key's changes reach the writer in order: none after a newer version of its key was saved",
      `${older} upserts older than the row, of ${applied}`,
      older === 0 && applied > 0,
    ),
    figure(
      'write-behind',
      'duplicates as the data source saw them, and what the writer and the flushers went through',
      `${duplicates} of ${applied} upserts were duplicates (${Math.round((duplicates / Math.max(applied, 1)) * 1000) / 10} %), ${same} of them of the row's own version; writer calls ok ${callsBy('ok')}, threw before saving ${callsBy('fail-before')}, threw after saving ${callsBy('fail-after')}; flush failures logged ${flushWarnings.length}; announcements given up ${stats?.abandoned ?? '?'}`,
    ),
    check(
      'write-behind',
      'no key under the prefix without a TTL but the partition streams (…:write-behind:{…}) and pending change records (…:wb)',
      `${withoutTtl.length} keys without TTL, ${unexpected.length} unexpected${unexpected.length ? ` (${unexpected.slice(0, 3).join(', ')})` : ''}; the doctor's keys-without-ttl would flag ${doctorFlags.length} of them (it knows no write-behind exception)`,
      unexpected.length === 0,
    ),
  ];
}

/** What holds back the changes still pending: partitions' heads, their change records, leases, the last warnings. */
async function diagnose(admin: Redis, survivor: Instance, times: Record<string, number | undefined>): Promise<string> {
  const [seconds, micros] = await admin.time();
  const parts = [`Redis time ${Number(seconds) * 1000 + Math.floor(Number(micros) / 1000)}, ${JSON.stringify(times)}`];
  for (const stream of await scanAll(admin, `${PREFIX}:write-behind:{*`)) {
    const length = await admin.xlen(stream);
    if (length === 0) continue;
    const heads = await Promise.all(
      (await admin.xrange(stream, '-', '+', 'COUNT', 2)).map(async ([id, fields]) => {
        const key = fields[fields.indexOf('k') + 1];
        const [record] = await scanAll(admin, `*${key}:wb`);
        return `${id} ${key} record ${record === undefined ? 'none' : JSON.stringify(await admin.hmget(record, 'v', 's', 'a'))}`;
      }),
    );
    parts.push(`${stream}: ${length} pending, head ${heads.join(', ')}`);
  }
  for (const lease of await scanAll(admin, `${PREFIX}:*write-behind:${QUEUE}:*`)) parts.push(`${lease} pttl ${await admin.pttl(lease)}`);
  parts.push(
    `last warnings: ${survivor.warnings
      .slice(-3)
      .map((w) => `${w.at} ${w.message.slice(0, 120)}`)
      .join(' | ')}`,
  );
  return parts.join('; ');
}

export const writeBehindCrashScenario: Scenario = {
  id: 'WRITE-BEHIND-CRASH',
  title:
    'write-behind: an instance SIGKILLed mid-flush and Redis restarted from its AOF while two instances write, the writer failing 30 % of calls',
  deadlineMs: 90_000,
  quickDeadlineMs: 60_000,
  run: writeBehindCrash,
};

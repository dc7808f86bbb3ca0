// NETWORK (CONN-1/2, CACHE-4, RL-3, LOCK-3, STR-1; goals G1, G4, G8, G13): real network faults between application
// instances and Redis. Three instances of a Nest app run in network namespaces this scenario creates (one veth pair
// each to the host, where redis-server listens on the host ends); faults are applied inside one instance's namespace
// to its Redis flow only, so the load generator still reaches its HTTP server: 100 ms added latency (tc netem),
// 10% packet loss each way (nftables numgen drops: TCP retransmits for real), and a 10 s black-hole partition while
// the two other instances keep serving. Across the partition: a lock the cut-off instance held expires and another
// instance takes it, the stale holder's fenced write is refused after the heal; stream entries it had in flight are
// redelivered to the other instances.
import { Redis } from 'ioredis';
import { StreamsService } from 'nestjs-redis-patterns/messaging';
import { TsChild } from '../lib/child';
import { now, pause, percentile, waitUntil } from '../lib/measure';
import { type NetSample, type NetTarget, probe, startNetLoad } from '../lib/net-load';
import {
  addDelay,
  createNetLab,
  droppedCounts,
  dropRedisPackets,
  healRedisPackets,
  type NetLab,
  type NetNode,
  removeDelay,
} from '../lib/netns';
import { check, type Check, figure, type Scenario, type ScenarioContext, unavailable } from '../lib/scenario';
import { keysWithoutTtl, ownApp, ownStandalone } from '../lib/servers';

const NAMES = ['a', 'b', 'c'] as const;
/** The instance every fault hits; a and b are the ones that keep working. */
const VICTIM = 2;
const PREFIX = 'fnet';
const DATA_PREFIX = 'fnet-data';
const COMMAND_TIMEOUT_MS = 500;
const SOURCE_MS = 20;
const DELAY_MS = 100;
const LOSS_ONE_IN = 10;
const PARTITION_MS = 10_000;
const RECOVERY_BOUND_MS = 2000;
/** The partitioned holder's lock: auto-extended every ttl/3, so it expires within one TTL of the cut. */
const LOCK_TTL_MS = 1000;
const STREAM = 'orders';
const GROUP = 'fulfilment';
const BATCH = 10;
const HANDLER_MS = 50;
const CLAIM_IDLE_MS = 1000;
/** Entries arrive in bursts, so a consumer takes several at once and has a batch in flight for a while. */
const BURST = 10;
const BURST_EVERY_MS = 300;
/** Server-side bounds: a cached read may pay one command deadline then the source; a decision one deadline. */
const CACHED_BOUND_MS = COMMAND_TIMEOUT_MS + SOURCE_MS;
const DECISION_BOUND_MS = COMMAND_TIMEOUT_MS;

interface Plan {
  rate: number;
  degradedSeconds: number;
  /** Calls per limiter route on the degraded instance during one degraded phase, and the limiter's capacity. */
  calls: number;
  limit: number;
}

const planOf = (quick: boolean): Plan => {
  const rate = quick ? 80 : 100;
  const degradedSeconds = quick ? 10 : 20;
  const calls = (rate * degradedSeconds) / 4;
  return { rate, degradedSeconds, calls, limit: Math.floor(calls / 2) };
};

/** Every promise of the scenario, by phase, so a machine without namespaces reports each one as unavailable. */
function promises(plan: Plan) {
  const degraded = (fault: string): Array<[string, string]> => [
    [
      'G1 CONN-2 CACHE-4',
      `${fault} on one instance's Redis link, ${plan.rate} req/s for ${plan.degradedSeconds} s: cached route answers all (non-200 0), p99 in the app ≤ commandTimeout + source latency (${CACHED_BOUND_MS} ms)`,
    ],
    [
      'G8 RL-3',
      `${fault}: fail-closed limiter (capacity ${plan.limit}, ~${plan.calls} calls) admits no more than its limit, exactly the limit when no decision failed; decision p99 ≤ commandTimeout (${DECISION_BOUND_MS} ms)`,
    ],
    [
      'G8 RL-3',
      `${fault}: fail-open limiter answers every call (200/429, 5xx 0), Redis-backed admissions ≤ limit; decision p99 ≤ ${DECISION_BOUND_MS} ms`,
    ],
    ['CONN-1', `${fault}: locked route runs under its lock or fails closed (200/409/503 only); lock keys without TTL 0`],
  ];
  const cut = `instance c partitioned from Redis (black hole, ${PARTITION_MS / 1000} s)`;
  return {
    latency: degraded(`${DELAY_MS} ms added latency`),
    loss: degraded(`${100 / LOSS_ONE_IN}% packet loss each way`),
    partition: [
      [
        'G1 CONN-2 CACHE-4 G8 RL-3',
        `${cut}: instances a and b keep serving, ${plan.rate} req/s each (non-200 0 on cached, limited, locked routes)`,
      ],
      ['G1 CONN-2 CACHE-4', `${cut}: its cached route answers all (non-200 0), p99 in the app ≤ ${CACHED_BOUND_MS} ms`],
      ['G8 RL-3', `${cut}: its fail-open limiter admits every call (200), decision p99 ≤ ${DECISION_BOUND_MS} ms`],
      ['G8 RL-3', `${cut}: its fail-closed limiter refuses every call (503), decision p99 ≤ ${DECISION_BOUND_MS} ms`],
      ['CONN-1', `${cut}: its locked route fails closed (503/409, never runs without the lock)`],
      [
        'G4 LOCK-3',
        `${cut}: its lock (ttl ${LOCK_TTL_MS} ms, auto-extended) expires and instance a takes it; after the heal c's fenced write is refused`,
      ],
      [
        'G4 LOCK-3',
        `${cut}: its AbortSignal fires within one renewal interval (${Math.floor(LOCK_TTL_MS / 3)} ms) of another instance taking the lock, so long before the heal (G4: ≤ one renewal interval after the fault ends)`,
      ],
      [
        'G13 STR-1',
        `${cut}: the stream entries c had in flight are redelivered to a or b; lost 0, duplicates ≤ the entries in flight, pending 0 at the end`,
      ],
      ['CONN-1 CONN-2', `${cut}: c is normal again within ${RECOVERY_BOUND_MS / 1000} s of the heal, by itself (lock granted, cache HIT)`],
    ] as Array<[string, string]>,
    worstHeal: [
      [
        'CONN-1 CONN-2',
        `instance c partitioned again, healed at the worst moment of its reconnect cycle (just after the last SYN of a connect attempt): normal within ${RECOVERY_BOUND_MS / 1000} s of the heal, by itself`,
      ],
    ] as Array<[string, string]>,
    survival: [['CONN-1 CONN-2', 'every instance process survives every fault']] as Array<[string, string]>,
  };
}

interface Instance {
  readonly index: number;
  readonly name: string;
  readonly net: NetNode;
  readonly child: TsChild;
  port: number;
}

const mix =
  (openKey: string, closedKey: string, limit: number) =>
  (n: number): { route: string; path: string } => {
    switch (n % 4) {
      case 0:
        return { route: 'cached', path: `/cached/${Math.floor(n / 4) % 5}` };
      case 1:
        return { route: 'open', path: `/limit/${openKey}/open/${limit}` };
      case 2:
        return { route: 'closed', path: `/limit/${closedKey}/closed/${limit}` };
      default:
        return { route: 'locked', path: '/locked' };
    }
  };

const targetOf = (instance: Instance, next: NetTarget['next']): NetTarget => ({
  node: instance.index,
  host: instance.net.address,
  port: instance.port,
  next,
});

/** Steady traffic: every limiter key far from its limit, so every answer is a 200 while Redis is reachable. */
const steady = (instance: Instance, tag: string): NetTarget =>
  targetOf(instance, mix(`${tag}-open-${instance.name}`, `${tag}-closed-${instance.name}`, 1_000_000));

const p99 = (samples: readonly NetSample[], server = true): number =>
  percentile(
    samples.map((s) => (server && Number.isFinite(s.serverMs) ? s.serverMs : s.ms)),
    99,
  );

const statuses = (samples: readonly NetSample[]): string => {
  const counts = new Map<number, number>();
  for (const s of samples) counts.set(s.status, (counts.get(s.status) ?? 0) + 1);
  return [...counts].map(([status, n]) => `${status}×${n}`).join(' ');
};

/** Ms from `since` until the instance granted its lock and served a cache HIT again (both), or Infinity. */
async function recoveryAfter(instance: Instance, samples: NetSample[], since: number): Promise<number> {
  const after = (s: NetSample) => s.node === instance.index && s.startedAt > since;
  try {
    await waitUntil(
      () =>
        samples.some((s) => after(s) && s.route === 'locked' && s.status === 200) && samples.some((s) => after(s) && s.xCache === 'HIT'),
      10_000,
      `instance ${instance.name} to be normal again`,
    );
  } catch {
    return Number.POSITIVE_INFINITY;
  }
  const done = (s: NetSample) => s.startedAt + s.ms;
  const lock = Math.min(...samples.filter((s) => after(s) && s.route === 'locked' && s.status === 200).map(done));
  const hit = Math.min(...samples.filter((s) => after(s) && s.xCache === 'HIT').map(done));
  return Math.round(Math.max(lock, hit) - since);
}

interface Env {
  context: ScenarioContext;
  plan: Plan;
  instances: Instance[];
  admin: Redis;
  redisPort: number;
}

/** Load on every instance while `fault` degrades the victim's Redis link; the victim's limiter keys burst past capacity. */
async function degradedPhase(
  env: Env,
  fault: string,
  tag: string,
  texts: Array<[string, string]>,
  control: { apply(): Promise<void>; clear(): Promise<void>; describe(): Promise<string> },
): Promise<Check[]> {
  const { plan, instances, context } = env;
  const targets = instances.map((instance) =>
    instance.index === VICTIM ? targetOf(instance, mix(`${tag}-open`, `${tag}-closed`, plan.limit)) : steady(instance, tag),
  );
  await control.apply();
  const from = now();
  const load = startNetLoad(targets, plan.rate);
  context.defer(() => load.stop());
  await pause(plan.degradedSeconds * 1000);
  await load.stop();
  const described = await control.describe();
  await control.clear();
  const mine = load.samples.filter((s) => s.node === VICTIM);
  const others = load.samples.filter((s) => s.node !== VICTIM);
  const route = (name: string) => mine.filter((s) => s.route === name);
  const cached = route('cached');
  const closed = route('closed');
  const open = route('open');
  const locked = route('locked');
  const cachedBad = cached.filter((s) => s.status !== 200).length;
  const hits = cached.filter((s) => s.xCache === 'HIT').length;
  const closedAdmitted = closed.filter((s) => s.status === 200).length;
  const closedUnavailable = closed.filter((s) => s.status === 503).length;
  const closedOther = closed.filter((s) => ![200, 429, 503].includes(s.status)).length;
  const openByRedis = open.filter((s) => s.status === 200 && s.source === 'redis').length;
  const openFailOpen = open.filter((s) => s.status === 200 && s.source === 'fail-open').length;
  const openOther = open.filter((s) => ![200, 429].includes(s.status)).length;
  const lockedRan = locked.filter((s) => s.status === 200).length;
  const lockedOther = locked.filter((s) => ![200, 409, 503].includes(s.status)).length;
  const noTtl = await keysWithoutTtl(env.admin, `${PREFIX}:lock:*`);
  context.figures[tag] = {
    fault: described,
    seconds: Math.round(now() - from) / 1000,
    victim: {
      cached: {
        n: cached.length,
        bad: cachedBad,
        hits,
        p99: p99(cached),
        p50: percentile(
          cached.map((s) => s.serverMs),
          50,
        ),
        clientP99: p99(cached, false),
      },
      closed: { n: closed.length, statuses: statuses(closed), p99: p99(closed) },
      open: { n: open.length, byRedis: openByRedis, failOpen: openFailOpen, statuses: statuses(open), p99: p99(open) },
      locked: { n: locked.length, statuses: statuses(locked), p99: p99(locked) },
    },
    others: { n: others.length, statuses: statuses(others), p99: p99(others) },
  };
  return [
    check(
      texts[0][0],
      texts[0][1],
      `answered ${cached.length - cachedBad}/${cached.length}, p99 ${p99(cached)} ms (p50 ${percentile(
        cached.map((s) => s.serverMs),
        50,
      )} ms, ${hits} HIT; at the client p99 ${p99(cached, false)} ms); ${described}`,
      cached.length > 0 && cachedBad === 0 && p99(cached) <= CACHED_BOUND_MS,
    ),
    check(
      texts[1][0],
      texts[1][1],
      `admitted ${closedAdmitted} of limit ${plan.limit} in ${closed.length} calls; refused as unavailable ${closedUnavailable}; other statuses ${closedOther}; p99 ${p99(closed)} ms`,
      closed.length > plan.limit &&
        closedAdmitted <= plan.limit &&
        (closedUnavailable > 0 || closedAdmitted === plan.limit) &&
        closedOther === 0 &&
        p99(closed) <= DECISION_BOUND_MS,
    ),
    check(
      texts[2][0],
      texts[2][1],
      `${statuses(open)} of ${open.length}: admitted by Redis ${openByRedis} (limit ${plan.limit}), admitted failing open ${openFailOpen}; p99 ${p99(open)} ms`,
      open.length > plan.limit && openOther === 0 && openByRedis <= plan.limit && p99(open) <= DECISION_BOUND_MS,
    ),
    check(
      texts[3][0],
      texts[3][1],
      `ran under the lock ${lockedRan} of ${locked.length} (${statuses(locked)}); lock keys without TTL ${noTtl.length}`,
      locked.length > 0 && lockedRan > 0 && lockedOther === 0 && noTtl.length === 0,
    ),
    figure('CONN-2', `${fault} on c: instances a and b meanwhile (control)`, `${statuses(others)}; p99 in the app ${p99(others)} ms`),
  ];
}

/** Waits until the victim answers normally again (lock granted and a cache HIT), between phases. */
async function settle(env: Env, tag: string): Promise<void> {
  const victim = env.instances[VICTIM];
  const target = steady(victim, tag);
  await waitUntil(
    async () => (await probe(target, 'locked', '/locked')).status === 200 && (await probe(target, 'cached', '/cached/0')).xCache === 'HIT',
    20_000,
    `instance ${victim.name} to be normal again after ${tag}`,
  );
}

function xpending(admin: Redis, key: string, consumer?: string): Promise<Array<[string, string, number, number]>> {
  const args = ['XPENDING', key, GROUP, '-', '+', '100000', ...(consumer ? [consumer] : [])];
  return admin.call(...(args as [string, ...string[]])) as Promise<Array<[string, string, number, number]>>;
}

async function partitionPhase(env: Env, texts: Array<[string, string]>): Promise<Check[]> {
  const { context, instances, admin, plan } = env;
  const victim = instances[VICTIM];
  const taker = instances[0];
  const producerApp = await ownApp(context, { connection: `redis://127.0.0.1:${env.redisPort}`, keyPrefix: PREFIX });
  const streams = producerApp.get(StreamsService);
  const key = streams.keyOf(STREAM);

  // Stream traffic for the whole phase: every instance consumes in one group.
  const produced = new Map<number, string>();
  let producing = true;
  const producer = (async () => {
    const start = now();
    for (let burst = 0; producing && !context.signal.aborted; burst++) {
      const ids = await Promise.all(Array.from({ length: BURST }, (_, i) => streams.add(STREAM, { seq: burst * BURST + i })));
      ids.forEach((id, i) => produced.set(burst * BURST + i, id));
      await pause(Math.max(0, start + (burst + 1) * BURST_EVERY_MS - now()));
    }
  })();
  context.defer(async () => {
    producing = false;
    await producer;
  });

  const load = startNetLoad(
    instances.map((instance) => steady(instance, 'part')),
    plan.rate,
  );
  context.defer(() => load.stop());
  victim.child.send('hold');
  const tokenC = Number((await victim.child.waitForLine(/^held (\d+)$/, 10_000))[1]);
  await pause(1500);

  // Cut c while it has stream entries in flight (read, not acknowledged).
  await waitUntil(async () => (await xpending(admin, key, victim.name)).length >= 2, 10_000, `entries in flight on ${victim.name}`);
  await dropRedisPackets(victim.net, env.redisPort, 'all');
  const from = now();
  const cutAt = Date.now();
  context.defer(() => healRedisPackets(victim.net).catch(() => undefined));
  // Whatever c sent before the cut has been answered by now (a read blocks 100 ms at most): what is pending on c is
  // what it had in flight, delivered or lost on the way back.
  await pause(250);
  const inFlight = new Set((await xpending(admin, key, victim.name)).map((row) => row[0]));
  context.log(`partitioned ${victim.name} with ${inFlight.size} stream entries in flight; lock token ${tokenC}`);

  taker.child.send('take');
  const took = await taker.child.waitForLine(/^took (\d+) (\d+) (\d)$/, PARTITION_MS);
  const [tokenA, tookAt, aWrite] = [Number(took[1]), Number(took[2]), Number(took[3])];
  await pause(Math.max(0, from + PARTITION_MS - now()));
  const dropped = await droppedCounts(victim.net);
  await healRedisPackets(victim.net);
  const to = now();
  const healAt = Date.now();
  context.log(`healed after ${Math.round(to - from)} ms (${dropped.dropped} packets dropped); instance a took the lock, token ${tokenA}`);

  victim.child.send('write');
  const fencedLine = await victim.child.waitForLine(/^fenced (\S+) (\d+)$/, 15_000);
  const fenced = fencedLine[1];
  const unfenced = (await victim.child.waitForLine(/^unfenced (\S+)$/, 5000))[1];
  const value = await admin.get(`${DATA_PREFIX}:value`);
  const unfencedValue = await admin.get(`${DATA_PREFIX}:unfenced`);
  const lockKey = `${PREFIX}:lock:{fenced}`;
  const aHolds = (await admin.pttl(lockKey)) > 0;
  taker.child.send('release');
  const abortLine = victim.child.lines.map((line) => /^abort (\d+) (\S+)$/.exec(line)).find((m) => m !== null) ?? undefined;
  const abortAt = abortLine ? Number(abortLine[1]) : Number.NaN;

  const recoveryMs = await recoveryAfter(victim, load.samples, to);
  // Entries keep coming until c's consumer takes one again: its blocking read has no deadline, so it is back only
  // when TCP retransmits across the heal.
  const resumed = await waitUntil(
    () => victim.child.lines.some((line, i) => line.startsWith('handled ') && victim.child.lineTimes[i] > to),
    20_000,
    "c's consumer to handle an entry again",
  ).then(
    () => true,
    () => false,
  );
  await load.stop();
  producing = false;
  await producer;

  // Every produced entry handled somewhere, and nothing left pending.
  const handledLines = () =>
    instances.map((instance) =>
      instance.child.lines.flatMap((line, i) => {
        const m = /^handled (\d+) (\d+)$/.exec(line);
        return m ? [{ seq: Number(m[1]), deliveries: Number(m[2]), at: instance.child.lineTimes[i], by: instance.index }] : [];
      }),
    );
  await waitUntil(
    () =>
      new Set(
        handledLines()
          .flat()
          .map((h) => h.seq),
      ).size >= produced.size,
    15_000,
    'every stream entry to be handled',
  ).catch(() => context.log('not every stream entry was handled in time'));
  await waitUntil(async () => (await xpending(admin, key)).length === 0, 10_000, 'an empty pending list').catch(() =>
    context.log('the pending list did not drain'),
  );
  const pendingAtEnd = (await xpending(admin, key)).length;
  const handled = handledLines();
  const seqOf = new Map([...produced].map(([seq, id]) => [id, seq]));
  const inFlightSeqs = new Set([...inFlight].map((id) => seqOf.get(id)));
  const redelivered = handled
    .flat()
    .filter((h) => h.by !== VICTIM && h.deliveries >= 2 && inFlightSeqs.has(h.seq))
    .sort((x, y) => x.at - y.at);
  const redeliveredSeqs = new Set(redelivered.map((h) => h.seq));
  const all = new Set(handled.flat().map((h) => h.seq));
  const lost = [...produced.keys()].filter((seq) => !all.has(seq)).length;
  const duplicates = handled.flat().length - all.size;
  const victimResumed = handled[VICTIM].find((h) => h.at > to);

  const inside = (s: NetSample) => s.startedAt >= from && s.startedAt + s.ms <= to;
  const during = load.samples.filter(inside);
  const others = during.filter((s) => s.node !== VICTIM);
  const mine = during.filter((s) => s.node === VICTIM);
  const route = (name: string) => mine.filter((s) => s.route === name);
  const [cached, open, closed, locked] = ['cached', 'open', 'closed', 'locked'].map(route);
  const othersBad = others.filter((s) => s.status !== 200).length;
  const cachedBad = cached.filter((s) => s.status !== 200).length;
  const openBad = open.filter((s) => s.status !== 200).length;
  const closedAdmitted = closed.filter((s) => s.status !== 503).length;
  const lockedRan = locked.filter((s) => s.status === 200).length;
  const interval = Math.floor(LOCK_TTL_MS / 3);

  Object.assign(context.figures, {
    partition: {
      ms: Math.round(to - from),
      dropped,
      others: { n: others.length, statuses: statuses(others), p99: p99(others) },
      victim: {
        cached: { n: cached.length, statuses: statuses(cached), p99: p99(cached), clientP99: p99(cached, false) },
        open: { n: open.length, statuses: statuses(open), p99: p99(open) },
        closed: { n: closed.length, statuses: statuses(closed), p99: p99(closed) },
        locked: { n: locked.length, statuses: statuses(locked) },
      },
      lock: {
        tokenC,
        tokenA,
        aWrite,
        fenced,
        attempts: Number(fencedLine[2]),
        value,
        aHolds,
        unfenced,
        unfencedValue,
        cutAt,
        abortAt,
        tookAt,
        healAt,
      },
      streams: {
        produced: produced.size,
        inFlight: inFlight.size,
        redelivered: redeliveredSeqs.size,
        firstRedeliveryMs: redelivered.length ? Math.round(redelivered[0].at - from) : null,
        lost,
        duplicates,
        pendingAtEnd,
        victimResumedMs: victimResumed ? Math.round(victimResumed.at - to) : null,
      },
      recoveryMs,
    },
  });
  return [
    check(
      texts[0][0],
      texts[0][1],
      `non-200 ${othersBad} of ${others.length}; p99 in the app ${p99(others)} ms`,
      others.length > 0 && othersBad === 0,
    ),
    check(
      texts[1][0],
      texts[1][1],
      `answered ${cached.length - cachedBad}/${cached.length}, p99 ${p99(cached)} ms (at the client ${p99(cached, false)} ms); ${dropped.dropped} packets dropped`,
      cached.length > 0 && cachedBad === 0 && p99(cached) <= CACHED_BOUND_MS,
    ),
    check(
      texts[2][0],
      texts[2][1],
      `${statuses(open)} of ${open.length}; p99 ${p99(open)} ms`,
      open.length > 0 && openBad === 0 && p99(open) <= DECISION_BOUND_MS,
    ),
    check(
      texts[3][0],
      texts[3][1],
      `${statuses(closed)} of ${closed.length}; p99 ${p99(closed)} ms`,
      closed.length > 0 && closedAdmitted === 0 && p99(closed) <= DECISION_BOUND_MS,
    ),
    check(
      texts[4][0],
      texts[4][1],
      `ran ${lockedRan} of ${locked.length} (${statuses(locked)})`,
      locked.length > 0 && lockedRan === 0 && locked.every((s) => s.status === 503 || s.status === 409),
    ),
    check(
      texts[5][0],
      texts[5][1],
      `stale fenced writes accepted ${fenced} (token c ${tokenC} ${tokenC < tokenA ? '<' : '≥'} a ${tokenA}; answered at attempt ${fencedLine[2]} after the heal); a's fenced write accepted ${aWrite} ${tookAt - cutAt} ms into the partition; value "${value}"; a still holds ${aHolds}`,
      fenced === '0' && aWrite === 1 && value === `from-${taker.name}` && aHolds && tokenA > tokenC,
    ),
    check(
      texts[6][0],
      texts[6][1],
      abortLine
        ? `aborted ${abortAt - cutAt} ms into the partition (${abortLine[2]}), ${
            abortAt <= tookAt ? `${tookAt - abortAt} ms before` : `${abortAt - tookAt} ms after`
          } a took the lock, ${healAt - abortAt} ms before the heal`
        : 'never aborted',
      abortLine !== undefined && abortLine[2] === 'LockLostError' && abortAt <= tookAt + interval && abortAt <= healAt + interval,
    ),
    figure(
      'LOCK-3',
      "without fencing the stale holder's write lands after the heal (the hazard fencing closes)",
      `unfenced stale write ${unfenced === 'ok' && unfencedValue === `from-${victim.name}` ? 'landed' : `did not land (${unfenced})`}`,
    ),
    check(
      texts[7][0],
      texts[7][1],
      `in flight on c at the cut ${inFlight.size}; redelivered to a/b ${redeliveredSeqs.size} of ${inFlight.size} (first ${
        redelivered.length ? Math.round(redelivered[0].at - from) : '-'
      } ms after the cut, claimIdleMs ${CLAIM_IDLE_MS}); lost ${lost} of ${produced.size}; duplicates ${duplicates}; pending at the end ${pendingAtEnd}`,
      inFlight.size > 0 && redeliveredSeqs.size === inFlight.size && lost === 0 && duplicates <= inFlight.size && pendingAtEnd === 0,
    ),
    figure(
      'G13 STR-1',
      "when c's stream consumer handled a new entry again (its blocking read waits for TCP to retransmit across the heal)",
      resumed && victimResumed ? `${Math.round(victimResumed.at - to)} ms after the heal` : 'not within 20 s of the heal',
    ),
    check(texts[8][0], texts[8][1], `${recoveryMs} ms`, recoveryMs <= RECOVERY_BOUND_MS),
  ];
}

/**
 * A black hole drops the instance's SYNs too, so each reconnect attempt lasts its whole connect timeout while the
 * kernel retransmits the SYN (after 1 s, then 1 s or doubling, by kernel). A heal just after an attempt's last SYN
 * leaves the instance waiting out that attempt's timeout and a retry delay before it tries again: the slowest moment
 * for a partition to end. The first attempt shows how many SYNs an attempt sends; the heal follows that many of the
 * second.
 */
async function worstHeal(env: Env, texts: Array<[string, string]>): Promise<Check[]> {
  const { context, instances, plan } = env;
  const victim = instances[VICTIM];
  const load = startNetLoad([steady(victim, 'worst')], plan.rate);
  context.defer(() => load.stop());
  await pause(1000);
  await dropRedisPackets(victim.net, env.redisPort, 'all');
  const from = now();
  const syns: number[] = [];
  /** Index in `syns` of each attempt's first SYN. */
  const starts: number[] = [];
  await waitUntil(
    async () => {
      const counts = await droppedCounts(victim.net);
      while (syns.length < counts.syns) syns.push(now() - from);
      // SYNs are a second apart or more, polls 10-20 ms: a new port belongs to the latest SYN.
      while (starts.length < counts.attempts) starts.push(syns.length - 1);
      if (starts.length < 2) return false;
      const perAttempt = starts[1] - starts[0];
      return syns.length - starts[starts.length - 1] >= perAttempt;
    },
    25_000,
    "the last SYN of the instance's second reconnect attempt",
  ).catch((error: Error) => {
    throw new Error(`${error.message}; SYNs at ${syns.map(Math.round).join(', ')} ms, attempts from SYN ${starts.join(', ')}`);
  });
  await healRedisPackets(victim.net);
  const to = now();
  const recoveryMs = await recoveryAfter(victim, load.samples, to);
  await load.stop();
  const timeline = syns.map(Math.round);
  context.figures.worstHeal = { synsMs: timeline, attemptStarts: starts, healedMs: Math.round(to - from), recoveryMs };
  return [
    check(
      texts[0][0],
      texts[0][1],
      `${recoveryMs} ms (SYNs at ${timeline.join(', ')} ms into the partition, ${starts[1] - starts[0]} per attempt; healed at ${Math.round(to - from)} ms)`,
      recoveryMs <= RECOVERY_BOUND_MS,
    ),
  ];
}

export const networkScenario: Scenario = {
  id: 'NETWORK',
  title: 'network namespaces: 100 ms latency, 10% loss, one instance partitioned 10 s',
  deadlineMs: 150_000,
  quickDeadlineMs: 75_000,
  async run(context) {
    const plan = planOf(context.quick);
    const texts = promises(plan);
    const everything = [...texts.latency, ...texts.loss, ...texts.partition, ...texts.worstHeal, ...texts.survival];

    let lab: NetLab;
    try {
      lab = await createNetLab(NAMES.length);
    } catch (error) {
      const reason = `network namespaces unavailable on this machine: ${(error as Error).message.slice(0, 200)}`;
      return everything.map(([ref, promise]) => unavailable(ref, promise, reason));
    }
    // Registered first, so it runs last: after the instances inside the namespaces are killed.
    context.defer(() => lab.remove());
    const nftError = await dropRedisPackets(lab.nodes[VICTIM], 1, 'all')
      .then(() => healRedisPackets(lab.nodes[VICTIM]))
      .then(
        () => undefined,
        (error: Error) => error.message.slice(0, 200),
      );

    const server = await ownStandalone(context, 'network', [
      '--bind',
      '127.0.0.1',
      ...lab.nodes.map((node) => node.hostAddress),
      // Protected mode refuses every non-loopback client without a password; these addresses are the private links.
      '--protected-mode',
      'no',
    ]);
    const redisPort = server.port;
    const admin = new Redis(server.url);
    context.defer(() => admin.disconnect());

    const instances: Instance[] = lab.nodes.map((net, index) => {
      const child = new TsChild(
        'test/fixtures/faults/net-app.ts',
        {
          REDIS_URL: `redis://${net.hostAddress}:${redisPort}`,
          KEY_PREFIX: PREFIX,
          INSTANCE: NAMES[index],
          COMMAND_TIMEOUT_MS: String(COMMAND_TIMEOUT_MS),
          SOURCE_MS: String(SOURCE_MS),
          DATA_PREFIX,
          LOCK_TTL_MS: String(LOCK_TTL_MS),
          STREAM,
          GROUP,
          BATCH_SIZE: String(BATCH),
          HANDLER_MS: String(HANDLER_MS),
          CLAIM_IDLE_MS: String(CLAIM_IDLE_MS),
        },
        [],
        { netns: net.ns },
      );
      context.defer(() => child.kill());
      return { index, name: NAMES[index], net, child, port: 0 };
    });
    await Promise.all(
      instances.map(async (instance) => {
        instance.port = Number((await instance.child.waitForLine(/^listening (\d+)$/, 60_000))[1]);
      }),
    );
    context.log(`instances up in ${lab.nodes.map((n) => n.ns).join(', ')}; redis on ${redisPort}`);
    const env: Env = { context, plan, instances, admin, redisPort };
    const checks: Check[] = [];

    // Baseline, which also fills the cache.
    const baseline = startNetLoad(
      instances.map((instance) => steady(instance, 'base')),
      plan.rate,
    );
    context.defer(() => baseline.stop());
    // The first second warms up (JIT, connections, cache fills) and is not part of the figure.
    const warm = now() + 1000;
    await pause(3000);
    await baseline.stop();
    const steadyState = baseline.samples.filter((s) => s.startedAt >= warm);
    checks.push(
      figure(
        'CONN-2',
        `baseline, no fault: ${instances.length} instances at ${plan.rate} req/s each, 2 s after a 1 s warm-up`,
        `${statuses(steadyState)}; p99 in the app ${p99(steadyState)} ms, at the client ${p99(steadyState, false)} ms`,
      ),
    );

    const victim = lab.nodes[VICTIM];
    const netemError = await addDelay(victim, DELAY_MS).then(
      () => undefined,
      (error: Error) => error.message.slice(0, 200),
    );
    if (netemError) {
      const reason = /unknown/i.test(netemError)
        ? `kernel has no sch_netem (tc: ${netemError.replace(/^.*: /, '')})`
        : `tc netem refused: ${netemError}`;
      checks.push(...texts.latency.map(([ref, promise]) => unavailable(ref, promise, reason)));
    } else {
      context.defer(() => removeDelay(victim).catch(() => undefined));
      checks.push(
        ...(await degradedPhase(env, `${DELAY_MS} ms added latency`, 'latency', texts.latency, {
          // Already applied: adding it was the test of whether the kernel can.
          apply: async () => undefined,
          clear: () => removeDelay(victim),
          describe: async () => `netem delay ${DELAY_MS} ms on all of c's egress (its HTTP answers too: in-app times exclude that)`,
        })),
      );
      await settle(env, 'latency');
    }

    if (nftError) {
      const reason = `nftables unavailable: ${nftError}`;
      checks.push(...[...texts.loss, ...texts.partition, ...texts.worstHeal].map(([ref, promise]) => unavailable(ref, promise, reason)));
    } else {
      context.defer(() => healRedisPackets(victim).catch(() => undefined));
      checks.push(
        ...(await degradedPhase(env, `${100 / LOSS_ONE_IN}% packet loss`, 'loss', texts.loss, {
          apply: () => dropRedisPackets(victim, redisPort, LOSS_ONE_IN),
          clear: () => healRedisPackets(victim),
          describe: async () => {
            const { seen, dropped } = await droppedCounts(victim);
            return `${dropped} of ${seen} packets dropped (${((100 * dropped) / Math.max(1, seen)).toFixed(1)}%)`;
          },
        })),
      );
      await settle(env, 'loss');
      checks.push(...(await partitionPhase(env, texts.partition)));
      await settle(env, 'partition');
      checks.push(...(await worstHeal(env, texts.worstHeal)));
    }
    const alive = instances.filter((instance) => instance.child.running);
    if (netemError && nftError) {
      checks.push(unavailable(texts.survival[0][0], texts.survival[0][1], 'no fault could be applied on this machine'));
      return checks;
    }
    checks.push(
      check(
        texts.survival[0][0],
        texts.survival[0][1],
        `${alive.length} of ${instances.length} alive${
          alive.length < instances.length ? `; ${instances.find((i) => !i.child.running)?.child.stderr.slice(-300)}` : ''
        }`,
        alive.length === instances.length,
      ),
    );
    return checks;
  },
};

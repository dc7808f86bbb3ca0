// CONN-4: a non-idempotent write is never applied twice because its connection dropped. A stream of writes (raw
// INCRs on the library's own client, and the library's non-idempotent operations: rate-limit consume, leaderboard
// increment, capped-list push, stream add) runs while a second connection kills every normal client several times
// (CLIENT KILL TYPE normal) and the client reconnects by itself.
//
// Every operation writes to its own key, member, identity or list item, so what Redis applied is known per
// operation and compared with what its caller was told:
// - acknowledged (a reply from Redis): applied exactly once;
// - refused before it was sent ("Stream isn't writeable": the connection was down, no offline queue): never applied;
// - unknown outcome (the socket closed with the command in flight, a timeout, a limiter answering without Redis):
//   applied at most once — the caller was told it may or may not have happened.
// A replay after the reconnect (ioredis' autoResendUnfulfilledCommands) would show as an operation applied twice.
// A plain ioredis client with its defaults (offline queue, resend after reconnect) runs the same INCRs alongside, as
// the control: it shows the hazard the library's settings close, and that this count would see it.
import { Redis } from 'ioredis';
import { RateLimiterService, RedisConnections } from 'nestjs-redis-patterns';
import { CappedList, Leaderboard } from 'nestjs-redis-patterns/structures';
import { StreamsService } from 'nestjs-redis-patterns/messaging';
import { now, pause, waitUntil } from '../lib/measure';
import { check, type Check, figure, type Scenario } from '../lib/scenario';
import { ownApp, scanAll, ownStandalone } from '../lib/servers';

const PREFIX = 'frp';
const RAW_INCRS = 10_000;
const KILLS = 3;
/** Issue ticks; each issues its share of every operation without waiting for replies. */
const TICKS = 200;
const TICK_MS = 5;
const WINDOW = { algorithm: 'fixed-window', limit: 1_000_000, windowMs: 600_000 } as const;

type Kind = 'raw INCR' | 'rate-limit consume' | 'leaderboard incr' | 'capped-list push' | 'stream add' | 'control INCR';
type Outcome = 'acknowledged' | 'refused' | 'unknown';

interface Op {
  kind: Kind;
  id: number;
  outcome?: Outcome;
  message?: string;
  issuedAt: number;
}

const messageOf = (error: unknown): string => {
  const e = error as Error & { cause?: unknown };
  return e.cause instanceof Error ? `${e.name}: ${e.message} (${e.cause.message})` : `${e.name}: ${e.message}`;
};

/** An error that proves the command never left: the connection was not writable and there is no offline queue. */
const refusedBeforeSending = (message: string): boolean => message.includes("Stream isn't writeable");

export const replayScenario: Scenario = {
  id: 'REPLAY',
  title: 'non-idempotent writes across CLIENT KILL: never applied twice',
  deadlineMs: 30_000,
  quickDeadlineMs: 20_000,
  async run(context) {
    const libraryOps = context.quick ? 1000 : 2500;
    const server = await ownStandalone(context, 'replay');
    const admin = new Redis(server.url);
    const control = new Redis(server.url);
    // Killed with the others: its reconnection errors are expected, not news.
    control.on('error', () => undefined);
    context.defer(() => [admin, control].forEach((c) => c.disconnect()));
    const app = await ownApp(context, { connection: server.url, keyPrefix: PREFIX });
    const client = app.get(RedisConnections).get() as Redis;
    const limiter = app.get(RateLimiterService);
    const board = app.get(Leaderboard);
    const list = app.get(CappedList);
    const streams = app.get(StreamsService);

    const ops: Op[] = [];
    const settled: Array<Promise<void>> = [];
    const track = (kind: Kind, id: number, call: () => Promise<unknown>, acknowledged: (value: unknown) => boolean): void => {
      const op: Op = { kind, id, issuedAt: now() };
      ops.push(op);
      let pending: Promise<unknown>;
      try {
        pending = call();
      } catch (error) {
        pending = Promise.reject(error);
      }
      settled.push(
        pending.then(
          (value) => {
            op.outcome = acknowledged(value) ? 'acknowledged' : 'unknown';
          },
          (error: unknown) => {
            op.message = messageOf(error);
            op.outcome = refusedBeforeSending(op.message) ? 'refused' : 'unknown';
          },
        ),
      );
    };
    const always = (): boolean => true;
    const share = (total: number, tick: number): [number, number] => [
      Math.floor((total * tick) / TICKS),
      Math.floor((total * (tick + 1)) / TICKS),
    ];

    const kills: Array<{ at: number; tick: number; killed: number }> = [];
    const killTicks = Array.from({ length: KILLS }, (_, k) => Math.floor(((k + 1) * TICKS) / (KILLS + 1)));
    const started = now();
    context.log(`${RAW_INCRS} raw INCRs and ${libraryOps} of each library write over ${TICKS} ticks of ${TICK_MS} ms; ${KILLS} kills`);
    for (let tick = 0; tick < TICKS && !context.signal.aborted; tick++) {
      const [rawFrom, rawTo] = share(RAW_INCRS, tick);
      for (let i = rawFrom; i < rawTo; i++) {
        track('raw INCR', i, () => client.incr(`${PREFIX}:raw:${i}`), always);
        track('control INCR', i, () => control.incr(`${PREFIX}:ctl:${i}`), always);
      }
      const [from, to] = share(libraryOps, tick);
      for (let i = from; i < to; i++) {
        track(
          'rate-limit consume',
          i,
          () => limiter.consume(`op-${i}`, WINDOW),
          (d) => (d as { source: string }).source === 'redis',
        );
        track('leaderboard incr', i, () => board.incr('replay', `m${i}`, 1), always);
        track('capped-list push', i, () => list.push('replay', `op-${i}`, { maxLength: 100_000 }), always);
        track('stream add', i, () => streams.add('replay', { op: String(i) }), always);
      }
      // Right behind this tick's writes, while they are in flight; only on a live connection (a kill of a
      // connection that is still reconnecting would prove nothing).
      if (kills.length < KILLS && tick >= killTicks[kills.length] && client.status === 'ready') {
        const killed = Number(await admin.call('CLIENT', 'KILL', 'TYPE', 'normal'));
        kills.push({ at: now(), tick, killed });
      }
      await pause(Math.max(0, started + (tick + 1) * TICK_MS - now()));
    }
    // Every call settles within the command deadline (500 ms); a hang fails here.
    await waitUntil(() => ops.every((op) => op.outcome !== undefined), 10_000, 'every write to settle');
    await Promise.all(settled);
    await waitUntil(() => client.status === 'ready', 5000, 'the library connection to be back');
    context.log(`${ops.length} writes settled; ${kills.length} kills`);

    // What Redis applied, per operation.
    const applied = new Map<Kind, Map<number, number>>();
    const set = (kind: Kind, id: number, n: number): void => {
      if (!applied.has(kind)) applied.set(kind, new Map());
      applied.get(kind)!.set(id, (applied.get(kind)!.get(id) ?? 0) + n);
    };
    const raw = await admin.mget(Array.from({ length: RAW_INCRS }, (_, i) => `${PREFIX}:raw:${i}`));
    raw.forEach((v, i) => v !== null && set('raw INCR', i, Number(v)));
    const ctl = await admin.mget(Array.from({ length: RAW_INCRS }, (_, i) => `${PREFIX}:ctl:${i}`));
    ctl.forEach((v, i) => v !== null && set('control INCR', i, Number(v)));
    const rlKeys = await scanAll(admin, `${PREFIX}:rl:*`);
    const rlValues = rlKeys.length ? await admin.mget(rlKeys) : [];
    rlKeys.forEach((key, j) => set('rate-limit consume', Number(/\{op-(\d+)\}/.exec(key)![1]), Number(rlValues[j])));
    const scores = await admin.zrange(`${PREFIX}:lb:{replay}`, '0', '-1', 'WITHSCORES');
    for (let j = 0; j < scores.length; j += 2) set('leaderboard incr', Number(scores[j].slice(1)), Number(scores[j + 1]));
    for (const item of await admin.lrange(`${PREFIX}:list:replay`, 0, -1)) set('capped-list push', Number(/op-(\d+)/.exec(item)![1]), 1);
    for (const [, fields] of await admin.xrange(streams.keyOf('replay'), '-', '+')) set('stream add', Number(fields[1]), 1);

    const kinds: Kind[] = ['raw INCR', 'rate-limit consume', 'leaderboard incr', 'capped-list push', 'stream add'];
    const tallyOf = (kind: Kind) => {
      const of = ops.filter((op) => op.kind === kind);
      const count = (id: number): number => applied.get(kind)?.get(id) ?? 0;
      const acknowledged = of.filter((op) => op.outcome === 'acknowledged');
      const unknown = of.filter((op) => op.outcome === 'unknown');
      const refused = of.filter((op) => op.outcome === 'refused');
      const total = of.reduce((sum, op) => sum + count(op.id), 0);
      return {
        kind,
        issued: of.length,
        acknowledged: acknowledged.length,
        unknown: unknown.length,
        unknownApplied: unknown.filter((op) => count(op.id) === 1).length,
        refused: refused.length,
        finalMinusAcknowledged: total - acknowledged.length,
        doubleApplied: of.filter((op) => count(op.id) >= 2).length,
        acknowledgedMissing: acknowledged.filter((op) => count(op.id) === 0).length,
        refusedApplied: refused.filter((op) => count(op.id) > 0).length,
        unknownMessages: [...new Set(unknown.map((op) => op.message ?? 'answered without Redis'))].slice(0, 4),
        // Errors from a socket that closed with the command in flight (not a limiter answering without Redis).
        inFlight: unknown.filter((op) => op.message !== undefined).length,
      };
    };
    const perKind = kinds.map(tallyOf);
    const controlTally = tallyOf('control INCR');
    const sum = (field: 'doubleApplied' | 'acknowledgedMissing' | 'refusedApplied' | 'inFlight'): number =>
      perKind.reduce((s, k) => s + k[field], 0);
    const lastKill = kills.length ? kills[kills.length - 1].at : Infinity;
    // The stream went on past the last kill and got replies again: the client reconnected by itself.
    const acknowledgedAfter = ops.filter((op) => op.issuedAt > lastKill && op.outcome === 'acknowledged').length;
    const inFlightAtKill = sum('inFlight');
    Object.assign(context.figures, { kills, perKind, control: controlTally, acknowledgedAfterLastKill: acknowledgedAfter });

    const checks: Check[] = [
      check(
        'CONN-4',
        `${RAW_INCRS} raw INCRs + ${libraryOps} each of rate-limit consume, leaderboard incr, capped-list push, stream add across ${KILLS} CLIENT KILL TYPE normal: double-applied 0 (final counter − acknowledged beyond the unknown-outcome errors), acknowledged-but-missing 0, refused-but-applied 0`,
        `double-applied ${sum('doubleApplied')}, acknowledged-but-missing ${sum('acknowledgedMissing')}, refused-but-applied ${sum('refusedApplied')}; final − acknowledged: ${perKind.map((k) => `${k.kind} ${k.finalMinusAcknowledged}`).join(', ')}`,
        sum('doubleApplied') === 0 && sum('acknowledgedMissing') === 0 && sum('refusedApplied') === 0 && ops.length > 0,
      ),
      check(
        'CONN-4',
        `the kills landed mid-stream (≥ 1 kill with writes in flight, reported as unknown outcome) and the client reconnected by itself (writes acknowledged after the last kill)`,
        `${kills.length} kills (${kills.map((k) => `${k.killed} client(s) at tick ${k.tick}`).join(', ')}); ${inFlightAtKill} writes in flight; ${acknowledgedAfter} acknowledged after the last kill`,
        kills.length >= 1 && kills.every((k) => k.killed >= 1) && inFlightAtKill > 0 && acknowledgedAfter > 0,
      ),
      figure(
        'CONN-4',
        'unknown-outcome errors per write (of them, applied by Redis before the socket closed)',
        perKind.map((k) => `${k.kind} ${k.unknown} (${k.unknownApplied} applied)`).join(', '),
      ),
      figure(
        'CONN-4',
        'writes refused before sending while the client reconnected (never applied)',
        perKind.map((k) => `${k.kind} ${k.refused}`).join(', '),
      ),
      figure(
        'CONN-4',
        'control: the same INCRs on a plain ioredis client with its defaults (autoResendUnfulfilledCommands true, offline queue)',
        `double-applied ${controlTally.doubleApplied} of ${controlTally.issued}; final − acknowledged ${controlTally.finalMinusAcknowledged}; unknown ${controlTally.unknown}`,
      ),
      figure(
        'CONN-4',
        'what callers were told on unknown outcomes (first distinct messages)',
        [...new Set(perKind.flatMap((k) => k.unknownMessages))].slice(0, 5).join(' | ') || 'none',
      ),
    ];
    await app.close();
    return checks;
  },
};

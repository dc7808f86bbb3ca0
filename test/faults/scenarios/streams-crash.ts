// STR-1, STR-3 (goal G13: at-least-once with bounded duplicates, dead-lettering after exactly maxDeliveries, crashes
// in the handler included). Four parts on one private server, each on a stream of its own:
// A. a consumer process SIGKILLed in the middle of a batch while a producer is still writing; a second consumer
//    process takes over its pending entries (XAUTOCLAIM) and the rest; an entry whose handler always throws.
// B. poison entries whose handler kills its own process (`process.exit(1)`, then SIGKILL of itself), two consumer
//    processes restarted under the same names each time, healthy entries written in bursts all along.
// C. four consumer processes, the busiest one SIGKILLed every few seconds (restarted under a new name, so its
//    entries come back through the other consumers' XAUTOCLAIM) while a producer writes N entries.
// D. a poison entry whose handler never settles, four consumers in this process.
import { Redis } from 'ioredis';
import { StreamsService, type StreamConsumerHandle } from 'nestjs-redis-patterns/messaging';
import { CaptureLogger } from '../lib/capture-logger';
import { now, pause, percentile, waitUntil } from '../lib/measure';
import { check, type Check, figure, type Scenario, type ScenarioContext } from '../lib/scenario';
import { ownApp, ownStandalone } from '../lib/servers';
import {
  bySeq,
  type ConsumerSettings,
  ConsumerSlot,
  deadLetters,
  type Handled,
  linesOf,
  pendingList,
  startConsumer,
} from '../lib/stream-consumers';

const PREFIX = 'fstr';

interface Env {
  context: ScenarioContext;
  url: string;
  admin: Redis;
  streams: StreamsService;
}

/** XADD of a burst in one MULTI, so a consumer blocked in XREADGROUP is handed the whole burst (a backlog). */
async function addBurst(admin: Redis, key: string, burst: ReadonlyArray<Record<string, string | number | undefined>>): Promise<string[]> {
  const multi = admin.multi();
  for (const fields of burst) {
    multi.xadd(key, '*', ...Object.entries(fields).flatMap(([k, v]) => (v === undefined ? [] : [k, String(v)])));
  }
  const replies = (await multi.exec()) ?? [];
  return replies.map(([error, id]) => {
    if (error) throw error;
    return id as string;
  });
}

const rate = (count: number, ms: number): number => Math.round((count / Math.max(ms, 1)) * 1000);

// ---------------------------------------------------------------------------------------------------------------
// A. One consumer SIGKILLed mid-batch; a poison entry that throws.

async function midBatchKill({ context, url, admin, streams }: Env): Promise<Check[]> {
  const ENTRIES = 2000;
  const PER_TICK = 10;
  const TICK_MS = 10;
  const KILL_AFTER_HANDLED = 300;
  const settings: ConsumerSettings = {
    url,
    prefix: PREFIX,
    stream: 'orders',
    group: 'billing',
    batch: 50,
    handlerMs: 2,
    // The victim never retries on its own before it dies: the poison entry's first delivery and first handler
    // attempt both happen in it, every later delivery is one survivor attempt.
    claimIdleMs: 60_000,
    maxDeliveries: 3,
  };
  const key = streams.keyOf(settings.stream);
  const deadLetterKey = streams.keyOf(`${settings.stream}.dlq`);
  const victim = startConsumer(settings, 'victim');
  context.defer(() => victim.kill());
  await victim.waitForLine(/^ready$/, 20_000);

  const produced = new Map<number, string>();
  let producing = true;
  const producer = (async () => {
    const started = now();
    for (let seq = 0; seq < ENTRIES && !context.signal.aborted; seq += PER_TICK) {
      const ids = await Promise.all(
        Array.from({ length: Math.min(PER_TICK, ENTRIES - seq) }, (_, i) =>
          streams.add(settings.stream, seq + i === 0 ? { seq: 0, poison: 'throw' } : { seq: seq + i }),
        ),
      );
      ids.forEach((id, i) => produced.set(seq + i, id));
      await pause(Math.max(0, started + ((seq + PER_TICK) / PER_TICK) * TICK_MS - now()));
    }
    producing = false;
  })();

  await waitUntil(
    () => linesOf(victim, 'victim').handled.length >= KILL_AFTER_HANDLED,
    20_000,
    `the victim to handle ${KILL_AFTER_HANDLED} entries`,
  );
  victim.signal('SIGKILL');
  await victim.exited;
  const killedAt = Date.now();
  const producedAtKill = produced.size;
  const producerStillWriting = producing;
  const victimPending = new Set((await pendingList(admin, key, settings.group, 'victim')).keys());
  const victimRun = linesOf(victim, 'victim');
  context.log(
    `A: victim killed after ${victimRun.handled.length} handled, ${victimPending.size} pending on it, producer at ${producedAtKill}`,
  );

  const survivor = startConsumer({ ...settings, claimIdleMs: 300 }, 'survivor');
  context.defer(() => survivor.kill());
  await producer;
  const everySeqHandled = (): boolean =>
    new Set([...victimRun.handled, ...linesOf(survivor, 'survivor').handled].map((h) => h.seq)).size === ENTRIES - 1;
  await waitUntil(everySeqHandled, 20_000, 'every entry but the poison one to be handled').catch(() =>
    context.log('A: not every entry was handled in time'),
  );
  await waitUntil(
    async () => (await admin.xlen(deadLetterKey)) > 0 && (await pendingList(admin, key, settings.group)).size === 0,
    10_000,
    'the poison entry dead-lettered and an empty pending list',
  ).catch(() => context.log('A: the pending list did not drain'));
  // Anything still to come (a second dead-letter copy, a late duplicate) lands within a reclaim interval or two.
  await pause(600);
  survivor.signal('SIGTERM');
  await Promise.race([survivor.exited, pause(5000)]);

  const survivorRun = linesOf(survivor, 'survivor');
  const calls = bySeq([...victimRun.handled, ...survivorRun.handled]);
  const lost = [...produced.keys()].filter((seq) => seq !== 0 && !calls.has(seq));
  const duplicates = [...calls.values()].reduce((sum, list) => sum + list.length - 1, 0);
  const handledUnacked = victimRun.handled.filter((h) => victimPending.has(produced.get(h.seq)!)).length;
  const beyondInFlight = [...calls.entries()].filter(
    ([seq, list]) => list.length > 1 && !(list.length === 2 && victimPending.has(produced.get(seq)!)),
  ).length;
  const reprocessed = survivorRun.handled.filter((h) => victimPending.has(produced.get(h.seq)!)).map((h) => h.at);
  const reprocessedAfterMs = reprocessed.length > 0 ? Math.min(...reprocessed) - killedAt : Number.NaN;
  const pendingAtEnd = (await pendingList(admin, key, settings.group)).size;
  const letters = await deadLetters(admin, deadLetterKey);
  const poisonLetters = letters.filter((l) => l.fields.sourceId === produced.get(0));
  const attempts = [...victimRun.poison, ...survivorRun.poison].sort((a, b) => a.deliveries - b.deliveries);
  const lettered = poisonLetters[0]?.fields.deliveries;

  context.figures.midBatchKill = {
    produced: produced.size,
    producedAtKill,
    producerStillWriting,
    victimHandled: victimRun.handled.length,
    victimPendingAtKill: victimPending.size,
    handledUnackedAtKill: handledUnacked,
    survivorHandled: survivorRun.handled.length,
    lost: lost.length,
    duplicates,
    duplicatesBeyondInFlight: beyondInFlight,
    reprocessedAfterMs,
    pendingAtEnd,
    poison: {
      attempts: attempts.map((a) => `${a.consumer}:${a.deliveries}`),
      deadLetters: poisonLetters.length,
      deliveriesRecorded: lettered,
    },
  };
  return [
    check(
      'G13 STR-1',
      `consumer SIGKILLed mid-batch (batch ${settings.batch}) while the producer writes ${ENTRIES} entries: lost 0 and pending list empty after a second consumer finishes`,
      `lost ${lost.length} of ${ENTRIES - 1}; killed with ${victimPending.size} entries pending on it, producer at ${producedAtKill}/${ENTRIES}; reprocessing began ${reprocessedAfterMs} ms after the kill (survivor start-up included); pending at end ${pendingAtEnd}`,
      lost.length === 0 && pendingAtEnd === 0 && victimPending.size > 0 && producerStillWriting,
    ),
    check(
      'G13 STR-1',
      'duplicates are exactly the entries handled but not yet acknowledged at the kill (≤ one batch)',
      `duplicates ${duplicates}; handled-unacknowledged at the kill ${handledUnacked}; others handled twice ${beyondInFlight}`,
      duplicates === handledUnacked && beyondInFlight === 0 && duplicates <= settings.batch,
    ),
    check(
      'G13 STR-3',
      `a poison entry whose handler throws is dead-lettered once, after exactly maxDeliveries (${settings.maxDeliveries}) handler deliveries`,
      `handler deliveries [${attempts.map((a) => `${a.consumer} ${a.deliveries}`).join(', ')}]; deliveries recorded ${lettered ?? 'none'}; dead-letter copies ${poisonLetters.length}; other entries dead-lettered ${letters.length - poisonLetters.length}`,
      attempts.length === settings.maxDeliveries &&
        attempts.map((a) => a.deliveries).join() === '1,2,3' &&
        lettered === String(settings.maxDeliveries) &&
        poisonLetters.length === 1 &&
        letters.length === 1,
    ),
  ];
}

// ---------------------------------------------------------------------------------------------------------------
// B. Poison entries whose handler crashes its process; the consumers are restarted each time.

async function crashingPoison({ context, url, admin, streams }: Env): Promise<Check[]> {
  const BURST = 20;
  const BURST_EVERY_MS = 100;
  const POISON_AT = 10;
  const settings: ConsumerSettings = {
    url,
    prefix: PREFIX,
    stream: 'payments',
    group: 'ledger',
    batch: BURST,
    handlerMs: 2,
    claimIdleMs: 500,
    maxDeliveries: 3,
  };
  const key = streams.keyOf(settings.stream);
  const deadLetterKey = streams.keyOf(`${settings.stream}.dlq`);
  // Stable names, as pods of a StatefulSet: a restarted consumer first re-reads its own pending entries (STR-2),
  // and whichever consumer is up reclaims the others' after claimIdleMs.
  const slots = [0, 1].map((i) => new ConsumerSlot(settings, () => `p${i}`, true));
  slots.forEach((slot) => context.defer(() => slot.cleanup()));
  await Promise.all(slots.map((slot) => slot.current.waitForLine(/^ready$/, 20_000)));

  const produced = new Map<number, string>();
  const producedAt = new Map<number, number>();
  const poisons: Array<{ mode: string; seq: number; id: string; at: number; letteredAt?: number }> = [];
  let inject: string | undefined;
  let producing = true;
  const producer = (async () => {
    const started = now();
    for (let tick = 0, seq = 0; producing && !context.signal.aborted; tick++) {
      const mode = inject;
      inject = undefined;
      const burst = Array.from({ length: BURST }, (_, i) => (mode && i === POISON_AT ? { seq: seq + i, poison: mode } : { seq: seq + i }));
      const ids = await addBurst(admin, key, burst);
      const at = Date.now();
      ids.forEach((id, i) => {
        produced.set(seq + i, id);
        producedAt.set(seq + i, at);
      });
      if (mode) poisons.push({ mode, seq: seq + POISON_AT, id: ids[POISON_AT], at });
      seq += BURST;
      await pause(Math.max(0, started + (tick + 1) * BURST_EVERY_MS - now()));
    }
  })();

  const startedAt = Date.now();
  await pause(1000);
  for (const mode of ['exit', 'sigkill']) {
    inject = mode;
    await waitUntil(() => poisons.some((p) => p.mode === mode), 5000, `the ${mode} poison to be written`);
    const poison = poisons.find((p) => p.mode === mode)!;
    await waitUntil(
      async () => (await deadLetters(admin, deadLetterKey)).some((l) => l.fields.sourceId === poison.id),
      25_000,
      `the ${mode} poison entry to be dead-lettered`,
    ).catch(() => context.log(`B: the ${mode} poison entry was not dead-lettered in time`));
    poison.letteredAt = Date.now();
    context.log(`B: ${mode} poison dead-lettered ${poison.letteredAt - poison.at} ms after it was written`);
  }
  await pause(500);
  producing = false;
  await producer;
  const poisonSeqs = new Set(poisons.map((p) => p.seq));
  const healthy = [...produced.keys()].filter((seq) => !poisonSeqs.has(seq));
  const handledSeqs = (): Set<number> => new Set(slots.flatMap((slot) => slot.all().handled.map((h) => h.seq)));
  await waitUntil(
    async () => {
      const seen = handledSeqs();
      return healthy.every((seq) => seen.has(seq)) && (await pendingList(admin, key, settings.group)).size === 0;
    },
    15_000,
    'every healthy entry handled and an empty pending list',
  ).catch(() => context.log('B: healthy entries still missing or pending'));
  await Promise.all(slots.map((slot) => slot.stop(3000)));

  const runs = slots.map((slot) => slot.all());
  const handled = runs.flatMap((r) => r.handled);
  const attempts = runs.flatMap((r) => r.poison);
  const calls = bySeq(handled);
  const letters = await deadLetters(admin, deadLetterKey);
  const poisonIds = new Set(poisons.map((p) => p.id));
  const collateral = letters.filter((l) => !poisonIds.has(l.fields.sourceId));
  const lost = healthy.filter((seq) => !calls.has(seq));
  const duplicates = [...calls.values()].reduce((sum, list) => sum + list.length - 1, 0);
  const pendingAtEnd = (await pendingList(admin, key, settings.group)).size;
  const exits = slots.flatMap((slot) => slot.exits);
  // Healthy throughput: entries first handled per second while a poison entry existed, against the second before.
  const firstHandled = new Map<number, number>();
  for (const h of handled) if (!poisonSeqs.has(h.seq)) firstHandled.set(h.seq, Math.min(firstHandled.get(h.seq) ?? Infinity, h.at));
  const firstPoisonAt = Math.min(...poisons.map((p) => p.at));
  const countIn = (from: number, to: number): number => [...firstHandled.values()].filter((at) => at >= from && at < to).length;
  const baseline = rate(countIn(startedAt + 200, firstPoisonAt), firstPoisonAt - startedAt - 200);
  const windows = poisons.map((p) => ({ mode: p.mode, rate: rate(countIn(p.at, p.letteredAt ?? p.at), (p.letteredAt ?? p.at) - p.at) }));
  const latencies = [...firstHandled.entries()].map(([seq, at]) => at - producedAt.get(seq)!);

  context.figures.crashingPoison = {
    produced: produced.size,
    poisons: poisons.map((p) => ({
      ...p,
      attempts: attempts.filter((a) => a.mode === p.mode).map((a) => `${a.consumer}:${a.deliveries}`),
    })),
    letters: letters.map((l) => ({ sourceId: l.fields.sourceId, deliveries: l.fields.deliveries, error: l.fields.error?.slice(0, 120) })),
    collateral: collateral.length,
    lost: lost.length,
    duplicates,
    pendingAtEnd,
    exits,
    throughput: { baseline, windows },
    handleLatencyMs: { p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: percentile(latencies, 100) },
  };
  const checks = poisons.map((poison) => {
    const mine = attempts.filter((a) => a.mode === poison.mode).sort((a, b) => a.deliveries - b.deliveries);
    const copies = letters.filter((l) => l.fields.sourceId === poison.id);
    const how = poison.mode === 'exit' ? 'calls process.exit(1)' : 'SIGKILLs its own process';
    return check(
      'G13 STR-3',
      `a poison entry whose handler ${how} (2 consumer processes restarted each time, batch ${settings.batch}, claimIdleMs ${settings.claimIdleMs}) is dead-lettered once, after exactly maxDeliveries (${settings.maxDeliveries}) handler deliveries counted by Redis`,
      `handler deliveries [${mine.map((a) => `${a.consumer} ${a.deliveries}`).join(', ')}] (the delivery count each handler saw, from XPENDING); dead-letter copies ${copies.length}, recording ${copies.map((c) => c.fields.deliveries).join('/') || 'none'} deliveries; dead-lettered ${poison.letteredAt ? poison.letteredAt - poison.at : '—'} ms after it was written`,
      mine.length === settings.maxDeliveries && mine.map((a) => a.deliveries).join() === '1,2,3' && copies.length === 1,
    );
  });
  return [
    ...checks,
    check(
      'G13 STR-1 STR-3',
      `healthy entries keep flowing around the crashing poison entries (${healthy.length} written in bursts of ${BURST}, ${exits.length} process crashes): lost 0, none dead-lettered, pending list empty at the end`,
      `lost ${lost.length}; healthy entries dead-lettered ${collateral.length}; pending at end ${pendingAtEnd}; duplicates ${duplicates}; exits ${exits.join(', ')}`,
      lost.length === 0 && collateral.length === 0 && pendingAtEnd === 0,
    ),
    figure(
      'STR-3',
      'healthy throughput while a crashing poison entry existed, against the second before (entries first handled per second; the producer writes 200/s)',
      `baseline ${baseline}/s; ${windows.map((w) => `${w.mode} ${w.rate}/s (${Math.round((w.rate / Math.max(baseline, 1)) * 100)} %)`).join(', ')}; write→handle p50 ${percentile(latencies, 50)} ms, p99 ${percentile(latencies, 99)} ms`,
    ),
  ];
}

// ---------------------------------------------------------------------------------------------------------------
// C. Four consumer processes, the busiest SIGKILLed every few seconds.

async function repeatedKills({ context, url, admin, streams }: Env): Promise<Check[]> {
  const ENTRIES = context.quick ? 5000 : 50_000;
  const PER_SECOND = context.quick ? 500 : 1000;
  const KILLS = context.quick ? 3 : 9;
  const KILL_EVERY_MS = context.quick ? 2500 : 5000;
  const CONSUMERS = 4;
  // Bursts written in one MULTI every 100 ms: the consumer blocked in XREADGROUP gets a full batch, as under a backlog.
  const BURST = PER_SECOND / 10;
  const settings: ConsumerSettings = {
    url,
    prefix: PREFIX,
    stream: 'events',
    group: 'fleet',
    batch: 20,
    handlerMs: 2,
    claimIdleMs: 1000,
    maxDeliveries: 5,
  };
  const reclaimIntervalMs = settings.claimIdleMs / 2;
  const key = streams.keyOf(settings.stream);
  const deadLetterKey = streams.keyOf(`${settings.stream}.dlq`);
  // A restarted process gets a new consumer name (the library's default is host-pid-random): its predecessor's
  // pending entries come back only through the XAUTOCLAIM of the others.
  const slots = Array.from({ length: CONSUMERS }, (_, i) => new ConsumerSlot(settings, (g) => `w${i}-${g}`, false));
  slots.forEach((slot) => context.defer(() => slot.cleanup()));
  await Promise.all(slots.map((slot) => slot.current.waitForLine(/^ready$/, 30_000)));

  const produced = new Map<number, string>();
  const producer = (async () => {
    const started = now();
    for (let seq = 0; seq < ENTRIES && !context.signal.aborted; seq += BURST) {
      const ids = await addBurst(
        admin,
        key,
        Array.from({ length: Math.min(BURST, ENTRIES - seq) }, (_, i) => ({ seq: seq + i })),
      );
      ids.forEach((id, i) => produced.set(seq + i, id));
      await pause(Math.max(0, started + ((seq + BURST) / BURST) * 100 - now()));
    }
  })();

  interface Kill {
    consumer: string;
    slot: number;
    killedAt: number;
    pending: Set<string>;
    handledBefore: Handled[];
  }
  const kills: Kill[] = [];
  const started = now();
  for (let k = 0; k < KILLS && !context.signal.aborted; k++) {
    // A different phase within the first half of the 100 ms burst period each time, while batches are being handled.
    await pause(Math.max(0, started + (k + 1) * KILL_EVERY_MS + ((k * 17) % 50) - now()));
    // The consumer with the most entries in hand (a kill of an idle consumer would show nothing), ties in turn.
    const pending = await pendingList(admin, key, settings.group);
    const load = slots.map((slot) => [...pending.values()].filter(([consumer]) => consumer === slot.consumer).length);
    const victim = [0, 1, 2, 3].map((i) => (i + k) % CONSUMERS).reduce((best, i) => (load[i] > load[best] ? i : best), k % CONSUMERS);
    const { consumer, killedAt } = await slots[victim].kill();
    const mine = new Set((await pendingList(admin, key, settings.group, consumer)).keys());
    const generation = slots[victim].generations.find((g) => g.consumer === consumer)!;
    kills.push({ consumer, slot: victim, killedAt, pending: mine, handledBefore: linesOf(generation.child, consumer).handled });
    context.log(`C: killed ${consumer} with ${mine.size} entries pending on it (produced ${produced.size}/${ENTRIES})`);
  }
  await producer;
  const handledSeqs = (): Set<number> => new Set(slots.flatMap((slot) => slot.all().handled.map((h) => h.seq)));
  await waitUntil(
    async () => handledSeqs().size === ENTRIES && (await pendingList(admin, key, settings.group)).size === 0,
    30_000,
    'every entry handled and an empty pending list',
  ).catch(() => context.log('C: entries still missing or pending'));
  // A late duplicate (a reclaim racing the last acknowledgement) would land within a reclaim interval.
  await pause(reclaimIntervalMs);
  await Promise.all(slots.map((slot) => slot.stop(3000)));

  const handled = slots.flatMap((slot) => slot.all().handled);
  const calls = bySeq(handled);
  const lost = [...produced.keys()].filter((seq) => !calls.has(seq));
  const duplicates = [...calls.values()].reduce((sum, list) => sum + list.length - 1, 0);
  const pendingAtEnd = (await pendingList(admin, key, settings.group)).size;
  const letters = await deadLetters(admin, deadLetterKey);
  const idOf = (seq: number): string => produced.get(seq)!;
  const handledUnacked = kills.reduce((sum, kill) => sum + kill.handledBefore.filter((h) => kill.pending.has(idOf(h.seq))).length, 0);
  const inFlight = kills.reduce((sum, kill) => sum + kill.pending.size, 0);
  const bound = settings.batch * kills.length;
  // Crash to reprocessing: the first entry the victim held that another consumer handled after the kill.
  const recovery = kills
    .filter((kill) => kill.pending.size > 0)
    .map((kill) => {
      const times = handled.filter((h) => h.at >= kill.killedAt && kill.pending.has(idOf(h.seq))).map((h) => h.at - kill.killedAt);
      return times.length > 0 ? Math.min(...times) : Number.NaN;
    });
  const recoveryBound = settings.claimIdleMs + reclaimIntervalMs;
  const worstRecovery = recovery.some(Number.isNaN) ? Number.NaN : Math.max(...recovery);

  context.figures.repeatedKills = {
    entries: ENTRIES,
    perSecond: PER_SECOND,
    kills: kills.map((k) => ({
      consumer: k.consumer,
      pending: k.pending.size,
      handledUnacked: k.handledBefore.filter((h) => k.pending.has(idOf(h.seq))).length,
    })),
    lost: lost.length,
    duplicates,
    handledUnacked,
    pendingAtEnd,
    deadLettered: letters.length,
    recoveryMs: recovery,
  };
  return [
    check(
      'G13 STR-1',
      `4 consumer processes, ${ENTRIES} entries at ${PER_SECOND}/s, the busiest SIGKILLed ${KILLS}× (every ${KILL_EVERY_MS / 1000} s, restarted under a new name): lost 0, none dead-lettered, pending list empty at the end`,
      `lost ${lost.length}; dead-lettered ${letters.length}; pending at end ${pendingAtEnd}; ${kills.length} kills with ${inFlight} entries pending on the victims`,
      lost.length === 0 && letters.length === 0 && pendingAtEnd === 0 && kills.length === KILLS && inFlight > 0,
    ),
    check(
      'G13 STR-1',
      `duplicates bounded by in-flight × crashes (batch ${settings.batch} × ${KILLS} kills = ${bound}), and exactly the entries handled but not acknowledged at the kills`,
      `duplicates ${duplicates}; entries handled but not acknowledged at the kills ${handledUnacked}`,
      duplicates <= bound && duplicates === handledUnacked && kills.length === KILLS,
    ),
    check(
      'STR-1',
      `reprocessing of a killed consumer's entries starts within claimIdleMs + one reclaim interval (${settings.claimIdleMs} + ${reclaimIntervalMs} ms) of the kill`,
      `per kill ${recovery.map((ms) => `${Math.round(ms)} ms`).join(', ')}; worst ${Math.round(worstRecovery)} ms`,
      recovery.length > 0 && worstRecovery <= recoveryBound,
    ),
  ];
}

// ---------------------------------------------------------------------------------------------------------------
// D. A poison entry whose handler never settles.

async function hangingPoison({ context, admin, streams }: Env, logger: CaptureLogger): Promise<Check[]> {
  const CONSUMERS = 4;
  const BURST = 10;
  const BURST_EVERY_MS = 50;
  const claimIdleMs = 300;
  const maxDeliveries = 3;
  const stream = 'hang';
  const key = streams.keyOf(stream);
  const deadLetterKey = streams.keyOf(`${stream}.dlq`);
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  context.defer(() => release());
  const attempts: Array<{ consumer: string; deliveries: number; at: number }> = [];
  const handled: Handled[] = [];
  const consumers: StreamConsumerHandle[] = Array.from({ length: CONSUMERS }, (_, i) =>
    streams.consume({
      stream,
      group: 'hang',
      consumer: `h${i}`,
      batchSize: BURST,
      blockMs: 50,
      claimIdleMs,
      maxDeliveries,
      stopTimeoutMs: 100,
      handler: async (message) => {
        if (message.fields.poison === 'hang') {
          attempts.push({ consumer: `h${i}`, deliveries: message.deliveries, at: Date.now() });
          await released;
          throw new Error('released at the end of the scenario');
        }
        await pause(1);
        handled.push({ seq: Number(message.fields.seq), deliveries: message.deliveries, at: Date.now(), consumer: `h${i}` });
      },
    }),
  );
  context.defer(() => Promise.all(consumers.map((c) => c.stop())).then(() => undefined));
  await Promise.all(consumers.map((c) => c.ready));

  const produced = new Map<number, string>();
  let poison: { id: string; at: number } | undefined;
  let injectAt = 0;
  let producing = true;
  const producer = (async () => {
    const started = now();
    for (let tick = 0, seq = 0; producing && !context.signal.aborted; tick++) {
      const withPoison = tick === injectAt && injectAt > 0;
      const burst = Array.from({ length: BURST }, (_, i) =>
        withPoison && i === BURST / 2 ? { seq: seq + i, poison: 'hang' } : { seq: seq + i },
      );
      const ids = await addBurst(admin, key, burst);
      ids.forEach((id, i) => produced.set(seq + i, id));
      if (withPoison) poison = { id: ids[BURST / 2], at: Date.now() };
      seq += BURST;
      await pause(Math.max(0, started + (tick + 1) * BURST_EVERY_MS - now()));
    }
  })();
  const startedAt = Date.now();
  injectAt = 10;
  await waitUntil(() => poison !== undefined, 5000, 'the hanging poison entry to be written');
  const poisonAt = poison!.at;
  const letteredAfter = await waitUntil(
    async () => (await deadLetters(admin, deadLetterKey)).some((l) => l.fields.sourceId === poison!.id),
    10_000,
    'the hanging poison entry to be dead-lettered',
  ).catch(() => Number.NaN);
  const letteredAt = Date.now();
  await pause(1000);
  producing = false;
  await producer;
  const poisonSeq = [...produced.entries()].find(([, id]) => id === poison!.id)![0];
  const healthy = [...produced.keys()].filter((seq) => seq !== poisonSeq);
  await waitUntil(
    () => {
      const seen = new Set(handled.map((h) => h.seq));
      return healthy.every((seq) => seen.has(seq));
    },
    10_000,
    'every healthy entry to be handled',
  ).catch(() => context.log('D: healthy entries still missing'));
  const stuck = new Set(attempts.map((a) => a.consumer)).size;
  const seen = new Set(handled.map((h) => h.seq));
  const lost = healthy.filter((seq) => !seen.has(seq));
  const letters = await deadLetters(admin, deadLetterKey);
  const copies = letters.filter((l) => l.fields.sourceId === poison!.id);
  const firstHandled = new Map<number, number>();
  for (const h of handled) firstHandled.set(h.seq, Math.min(firstHandled.get(h.seq) ?? Infinity, h.at));
  const countIn = (from: number, to: number): number => [...firstHandled.values()].filter((at) => at >= from && at < to).length;
  const before = rate(countIn(startedAt + 100, poisonAt), poisonAt - startedAt - 100);
  const after = rate(countIn(letteredAt, letteredAt + 1000), 1000);
  const warnings = logger.count(/Consumer ".*" still had handlers running/);
  await Promise.all(consumers.map((c) => c.stop()));
  release();

  context.figures.hangingPoison = {
    attempts,
    letteredAfterMs: letteredAfter,
    copies: copies.map((c) => c.fields.deliveries),
    collateral: letters.length - copies.length,
    lost: lost.length,
    stuckConsumers: stuck,
    throughput: { before, after },
    abandonedOnStop: warnings,
  };
  return [
    check(
      'G13 STR-3',
      `a poison entry whose handler hangs forever (4 consumers, claimIdleMs ${claimIdleMs}) is dead-lettered once, after exactly maxDeliveries (${maxDeliveries}) handler deliveries`,
      `handler deliveries [${attempts.map((a) => `${a.consumer} ${a.deliveries}`).join(', ')}]; dead-letter copies ${copies.length}, recording ${copies.map((c) => c.fields.deliveries).join('/') || 'none'} deliveries, ${Math.round(letteredAfter)} ms after it was written; healthy lost ${lost.length}, dead-lettered ${letters.length - copies.length}`,
      attempts.length === maxDeliveries &&
        attempts.map((a) => a.deliveries).join() === '1,2,3' &&
        copies.length === 1 &&
        letters.length === 1 &&
        lost.length === 0,
    ),
    figure(
      'STR-1 STR-3',
      'consumers left blocked by the hanging handler (the library has no handler timeout: each delivery of the entry takes one consumer out for good)',
      `${stuck} of ${CONSUMERS} consumers blocked; healthy throughput ${before}/s before, ${after}/s after the dead-lettering (the producer writes ${(BURST * 1000) / BURST_EVERY_MS}/s)`,
    ),
  ];
}

export const streamsCrashScenario: Scenario = {
  id: 'STREAMS-CRASH',
  title: 'streams: consumers SIGKILLed mid-batch and repeatedly; poison entries that throw, crash their process or hang',
  deadlineMs: 150_000,
  quickDeadlineMs: 75_000,
  async run(context) {
    const server = await ownStandalone(context, 'streams');
    const admin = new Redis(server.url);
    context.defer(() => admin.disconnect());
    const logger = new CaptureLogger();
    const app = await ownApp(context, { connection: server.url, keyPrefix: PREFIX, logger });
    const env: Env = { context, url: server.url, admin, streams: app.get(StreamsService) };
    const checks: Check[] = [];
    checks.push(...(await midBatchKill(env)));
    context.log('A done (mid-batch kill, throwing poison)');
    checks.push(...(await crashingPoison(env)));
    context.log('B done (poison entries crashing their process)');
    checks.push(...(await hangingPoison(env, logger)));
    context.log('D done (hanging poison entry)');
    checks.push(...(await repeatedKills(env)));
    return checks;
  },
};

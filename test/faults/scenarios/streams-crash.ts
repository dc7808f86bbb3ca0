// STR-1, STR-3 (goal G-streams): a consumer process SIGKILLed in the middle of a batch while a producer is still
// writing; a second consumer process takes over its pending entries (XAUTOCLAIM) and the rest of the stream. Every
// produced entry is handled at least once, the duplicates are exactly the entries handled but not yet acknowledged
// at the kill, and an entry whose handler always throws is dead-lettered after exactly maxDeliveries deliveries.
import { Redis } from 'ioredis';
import { StreamsService } from 'nestjs-redis-patterns';
import { TsChild } from '../lib/child';
import { now, pause, waitUntil } from '../lib/measure';
import { check, type Scenario } from '../lib/scenario';
import { ownApp, ownStandalone } from '../lib/servers';

const ENTRIES = 2000;
const PRODUCE_PER_TICK = 10;
const TICK_MS = 10;
const BATCH = 50;
const HANDLER_MS = 2;
const KILL_AFTER_HANDLED = 300;
const MAX_DELIVERIES = 3;
const SURVIVOR_CLAIM_IDLE_MS = 300;
const PREFIX = 'fstr';
const STREAM = 'orders';
const GROUP = 'billing';

interface Handled {
  seq: number;
  deliveries: number;
  by: 'victim' | 'survivor';
}

/** Parses the consumer's protocol lines: handled entries and poison attempts, with the process that saw them. */
function tally(child: TsChild, by: Handled['by']): { handled: Handled[]; poison: number[] } {
  const handled: Handled[] = [];
  const poison: number[] = [];
  for (const line of child.lines) {
    const h = /^handled (\d+) (\d+)$/.exec(line);
    if (h) handled.push({ seq: Number(h[1]), deliveries: Number(h[2]), by });
    const p = /^poison (\d+)$/.exec(line);
    if (p) poison.push(Number(p[1]));
  }
  return { handled, poison };
}

/** The pending list of the group: id → consumer (XPENDING extended form). */
async function pendingList(admin: Redis, key: string): Promise<Map<string, string>> {
  const rows = (await admin.call('XPENDING', key, GROUP, '-', '+', 100_000)) as Array<[string, string, number, number]>;
  return new Map(rows.map((row) => [row[0], row[1]]));
}

function consumerEnv(url: string, consumer: string, claimIdleMs: number): Record<string, string> {
  return {
    REDIS_URL: url,
    KEY_PREFIX: PREFIX,
    STREAM,
    GROUP,
    CONSUMER: consumer,
    BATCH_SIZE: String(BATCH),
    HANDLER_MS: String(HANDLER_MS),
    CLAIM_IDLE_MS: String(claimIdleMs),
    MAX_DELIVERIES: String(MAX_DELIVERIES),
  };
}

export const streamsCrashScenario: Scenario = {
  id: 'STREAMS-CRASH',
  title: 'streams: consumer SIGKILLed mid-batch; poison entry',
  deadlineMs: 30_000,
  async run(context) {
    const server = await ownStandalone(context, 'streams');
    const admin = new Redis(server.url);
    context.defer(() => admin.disconnect());
    const producerApp = await ownApp(context, { connection: server.url, keyPrefix: PREFIX });
    const streams = producerApp.get(StreamsService);
    const key = streams.keyOf(STREAM);
    const deadLetterKey = streams.keyOf(`${STREAM}.dlq`);

    // The victim never retries on its own before it dies (claimIdleMs 60 s): the poison entry's first delivery and
    // first handler attempt both happen in it, and every later delivery is one survivor attempt, so the handler's own
    // tally can be compared with Redis' delivery counter without a crash falling between the two.
    const victim = new TsChild('test/fixtures/faults/stream-consumer.ts', consumerEnv(server.url, 'victim', 60_000));
    context.defer(() => victim.kill());
    await victim.waitForLine(/^ready$/, 20_000);

    const produced = new Map<number, string>();
    let producing = true;
    const producer = (async () => {
      const started = now();
      for (let seq = 0; seq < ENTRIES && !context.signal.aborted; seq += PRODUCE_PER_TICK) {
        const ids = await Promise.all(
          Array.from({ length: Math.min(PRODUCE_PER_TICK, ENTRIES - seq) }, (_, i) =>
            streams.add(STREAM, seq + i === 0 ? { seq: 0, poison: 1 } : { seq: seq + i }),
          ),
        );
        ids.forEach((id, i) => produced.set(seq + i, id));
        const due = started + ((seq + PRODUCE_PER_TICK) / PRODUCE_PER_TICK) * TICK_MS;
        await pause(Math.max(0, due - now()));
      }
      producing = false;
    })();

    await waitUntil(
      () => victim.lines.filter((line) => line.startsWith('handled ')).length >= KILL_AFTER_HANDLED,
      20_000,
      `the victim to handle ${KILL_AFTER_HANDLED} entries`,
    );
    victim.signal('SIGKILL');
    await victim.exited;
    const killedAt = now();
    const producedAtKill = produced.size;
    const producerStillWriting = producing;
    const pendingAtKill = await pendingList(admin, key);
    const victimPending = new Set([...pendingAtKill].filter(([, consumer]) => consumer === 'victim').map(([id]) => id));
    const victimRun = tally(victim, 'victim');
    context.log(
      `victim killed after ${victimRun.handled.length} handled; ${victimPending.size} entries pending on it; producer at ${producedAtKill}/${ENTRIES}`,
    );

    const survivor = new TsChild('test/fixtures/faults/stream-consumer.ts', consumerEnv(server.url, 'survivor', SURVIVOR_CLAIM_IDLE_MS));
    context.defer(() => survivor.kill());
    // Time from the kill to the first entry of the victim handled again (survivor start-up included).
    const recovery = survivor.waitForLine(/^handled \d+ ([2-9]|\d{2,})$/, 25_000).then(
      () => Math.round(now() - killedAt),
      () => Number.NaN,
    );
    await producer;
    const poisonSeq = 0;
    const everySeqHandled = (): boolean => {
      const seen = new Set([...victimRun.handled, ...tally(survivor, 'survivor').handled].map((h) => h.seq));
      return seen.size === ENTRIES - 1;
    };
    await waitUntil(everySeqHandled, 20_000, 'every entry but the poison one to be handled').catch(() =>
      context.log('not every entry was handled in time'),
    );
    await waitUntil(
      async () => (await admin.xlen(deadLetterKey)) > 0 && (await pendingList(admin, key)).size === 0,
      10_000,
      'the poison entry dead-lettered and an empty pending list',
    ).catch(() => context.log('the pending list did not drain'));
    // Anything still to come (a second dead-letter copy, a late duplicate) lands within a reclaim interval or two.
    await pause(2 * SURVIVOR_CLAIM_IDLE_MS);
    survivor.signal('SIGTERM');
    await Promise.race([survivor.exited, pause(5000)]);

    const survivorRun = tally(survivor, 'survivor');
    const all = [...victimRun.handled, ...survivorRun.handled];
    const calls = new Map<number, Handled[]>();
    for (const h of all) calls.set(h.seq, [...(calls.get(h.seq) ?? []), h]);
    const lost = [...produced.keys()].filter((seq) => seq !== poisonSeq && !calls.has(seq));
    const duplicates = [...calls.values()].reduce((sum, list) => sum + list.length - 1, 0);
    const handledUnacked = victimRun.handled.filter((h) => victimPending.has(produced.get(h.seq)!)).length;
    const beyondInFlight = [...calls.entries()].filter(
      ([seq, list]) => list.length > 1 && !(list.length === 2 && victimPending.has(produced.get(seq)!)),
    ).length;
    const reprocessedAfterMs = await recovery;
    const pendingAtEnd = (await pendingList(admin, key)).size;

    const letters = (await admin.xrange(deadLetterKey, '-', '+')).map(([id, flat]) => {
      const fields: Record<string, string> = {};
      for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i]] = flat[i + 1];
      return { id, fields };
    });
    const poisonId = produced.get(poisonSeq);
    const poisonLetters = letters.filter((l) => l.fields.sourceId === poisonId);
    const poisonAttempts = victimRun.poison.length + survivorRun.poison.length;
    const lettered = poisonLetters[0]?.fields.deliveries;

    Object.assign(context.figures, {
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
        attemptsVictim: victimRun.poison,
        attemptsSurvivor: survivorRun.poison,
        deadLetters: poisonLetters.length,
        deliveriesRecorded: lettered,
        otherDeadLetters: letters.length - poisonLetters.length,
      },
      killToEndMs: Math.round(now() - killedAt),
    });
    return [
      check(
        `consumer SIGKILLed mid-batch (batch ${BATCH}) while the producer writes ${ENTRIES} entries: lost 0 after a second consumer finishes`,
        `lost ${lost.length} of ${ENTRIES - 1}; reprocessing began ${reprocessedAfterMs} ms after the kill; killed with ${victimPending.size} entries pending on it, producer at ${producedAtKill}/${ENTRIES}; pending at end ${pendingAtEnd}`,
        lost.length === 0 && pendingAtEnd === 0 && victimPending.size > 0 && producerStillWriting,
      ),
      check(
        'duplicates are only the entries handled but not yet acknowledged at the kill (≤ one batch)',
        `duplicates ${duplicates}; handled-unacknowledged at the kill ${handledUnacked}; others handled twice ${beyondInFlight}`,
        duplicates === handledUnacked && beyondInFlight === 0 && duplicates <= BATCH,
      ),
      check(
        `a poison entry (handler always throws) lands in the dead-letter stream after exactly maxDeliveries (${MAX_DELIVERIES}) attempts`,
        `handler attempts ${poisonAttempts} (victim ${victimRun.poison.length}, survivor ${survivorRun.poison.length}); deliveries recorded ${lettered ?? 'none'}; dead-letter copies ${poisonLetters.length}; other entries dead-lettered ${letters.length - poisonLetters.length}`,
        poisonAttempts === MAX_DELIVERIES && lettered === String(MAX_DELIVERIES) && poisonLetters.length === 1 && letters.length === 1,
      ),
    ];
  },
};

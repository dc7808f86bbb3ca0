// PS-2 (and PS-1's at-most-once figure): a slow subscriber against Redis' output-buffer limit, set to
// `pubsub 256kb 64kb 5` (the default, 32mb 8mb 60, would take minutes to trip). A subscriber process (PubSubService)
// whose handler takes 10 ms per message, a publisher at 5000 msg/s of 1 KB here:
// 1. the handler awaits 10 ms (the catalogue's recipe); 2. it spins the CPU for 10 ms (a CPU-bound handler);
// in both the library must keep reading the socket, so Redis never disconnects the subscriber, and buffer what the
// handler cannot keep up with in its bounded queue (drops counted);
// 3. the subscriber process is SIGSTOPped (a GC pause, a blocked event loop) until Redis disconnects it for its
// output buffer, then resumed: it must reconnect, re-subscribe, say so, and receive again.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { PubSubService } from 'nestjs-redis-patterns/messaging';
import { TsChild } from '../lib/child';
import { now, pause, waitUntil } from '../lib/measure';
import { check, type Check, figure, type Scenario, type ScenarioContext } from '../lib/scenario';
import { ownApp, ownStandalone } from '../lib/servers';

const PREFIX = 'fps';
const FIXTURE = 'test/fixtures/faults/pubsub-subscriber.ts';
const PER_SECOND = 5000;
const TICK_MS = 10;
const PER_TICK = (PER_SECOND * TICK_MS) / 1000;
const PAD = 'x'.repeat(1000);
const CAPACITY = 10_000;
const RECOVERY_BOUND_MS = 2000;

interface Summary {
  received: number;
  distinct: number;
  maxSeq: number;
  seqs: Array<[number, number]>;
  started: number;
  highWater: number;
  dropped: number;
  waitingAtStop: number;
}

/** Publishes `{ seq, pad }` (about 1 KB of JSON) on `channel` at PER_SECOND until `stop()`; the last seq is `count - 1`. */
function publisher(context: ScenarioContext, pubsub: PubSubService, channel: string): { stop(): Promise<number>; count(): number } {
  let running = true;
  let count = 0;
  const done = (async () => {
    const started = now();
    for (let tick = 0; running && !context.signal.aborted; tick++) {
      const first = count;
      count += PER_TICK;
      await Promise.all(Array.from({ length: PER_TICK }, (_, i) => pubsub.publish(channel, { seq: first + i, pad: PAD })));
      await pause(Math.max(0, started + (tick + 1) * TICK_MS - now()));
    }
  })();
  return {
    count: () => count,
    stop: async () => {
      running = false;
      await done;
      return count;
    },
  };
}

/** Subscriber processes, one at a time: a blocked one is replaced for the next phase. */
class Subscriber {
  child!: TsChild;
  constructor(
    private readonly context: ScenarioContext,
    private readonly url: string,
  ) {}

  async start(): Promise<void> {
    this.child = new TsChild(FIXTURE, { REDIS_URL: this.url, KEY_PREFIX: PREFIX });
    const child = this.child;
    this.context.defer(() => child.kill());
    await child.waitForLine(/^ready$/, 30_000);
  }

  async subscribe(channel: string, mode: 'sleep' | 'cpu'): Promise<void> {
    this.child.send(`start ${channel} ${mode}`);
    await this.child.waitForLine(new RegExp(`^subscribed ${channel}$`), 10_000);
  }

  /** The phase's summary, or undefined when the process does not answer within `timeoutMs` (event loop blocked). */
  async summary(channel: string, timeoutMs: number): Promise<Summary | undefined> {
    this.child.send(`stop ${channel}`);
    return this.child
      .waitForLine(new RegExp(`^summary ${channel} (.*)$`), timeoutMs)
      .then((m) => JSON.parse(m[1]) as Summary)
      .catch(() => undefined);
  }
}

const missing = (summary: Summary, published: number): number =>
  published - summary.seqs.reduce((sum, [first, last]) => sum + Math.max(0, Math.min(last, published - 1) - first + 1), 0);

export const pubsubSlowScenario: Scenario = {
  id: 'PUBSUB-SLOW',
  title: 'pub/sub: slow subscriber (10 ms handler, 5000 msg/s of 1 KB) against a 256kb/64kb/5s output-buffer limit',
  deadlineMs: 75_000,
  quickDeadlineMs: 40_000,
  async run(context) {
    const phaseMs = context.quick ? 3000 : 10_000;
    mkdirSync(context.dir, { recursive: true });
    const logFile = join(context.dir, 'pubsub-redis.log');
    const server = await ownStandalone(context, 'pubsub', ['--logfile', logFile]);
    const admin = new Redis(server.url);
    context.defer(() => admin.disconnect());
    await admin.config('SET', 'client-output-buffer-limit', 'pubsub 256kb 64kb 5');
    // Redis logs each client it closes for its output buffer; INFO of 7.0 has no counter for it.
    const forcedDisconnects = (): number => (readFileSync(logFile, 'utf8').match(/overcoming of output buffer limits/g) ?? []).length;
    const app = await ownApp(context, { connection: server.url, keyPrefix: PREFIX });
    const pubsub = app.get(PubSubService);
    const subscriber = new Subscriber(context, server.url);
    await subscriber.start();
    const checks: Check[] = [];

    for (const mode of ['sleep', 'cpu'] as const) {
      const channel = `feed-${mode}`;
      await subscriber.subscribe(channel, mode);
      const before = forcedDisconnects();
      const publishing = publisher(context, pubsub, channel);
      await pause(phaseMs);
      const published = await publishing.stop();
      // The reader catches up with what is in flight within a few ms; the summary command waits behind it.
      const summary = await subscriber.summary(channel, 5000);
      const disconnects = forcedDisconnects() - before;
      const how = mode === 'sleep' ? 'awaits 10 ms' : 'spins the CPU for 10 ms';
      context.figures[mode] = { published, disconnects, summary: summary && { ...summary, seqs: summary.seqs.length } };
      if (!summary) {
        checks.push(
          check(
            'PS-2',
            `the handler never blocks the socket reader: a handler that ${how} per message, ${PER_SECOND} msg/s of 1 KB for ${phaseMs / 1000} s: forced disconnects 0, every published message reaches the reader`,
            `forced disconnects ${disconnects}; the subscriber process did not answer within 5 s after the load stopped (its event loop is held by the handler queue); ${published} published`,
            false,
          ),
        );
        await subscriber.child.kill();
        await subscriber.start();
        continue;
      }
      const lostAtReader = missing(summary, published);
      checks.push(
        check(
          'PS-2',
          `the handler never blocks the socket reader: a handler that ${how} per message, ${PER_SECOND} msg/s of 1 KB for ${phaseMs / 1000} s: forced disconnects 0, every published message reaches the reader`,
          `forced disconnects ${disconnects}; the reader received ${summary.distinct} of ${published} (missing ${lostAtReader})`,
          disconnects === 0 && lostAtReader === 0 && summary.distinct === published,
        ),
        figure(
          'PS-2',
          `in-process buffer of the slow handler (${how}; maxQueuedMessages ${CAPACITY})`,
          `high-water ${summary.highWater} messages; handled ${summary.started}, dropped ${summary.dropped} (newest first, counted and logged by the library), waiting when unsubscribed ${summary.waitingAtStop}`,
        ),
      );
    }

    // 3. The reader stalled until Redis disconnects the subscriber for its output buffer.
    const channel = 'feed-stall';
    await subscriber.subscribe(channel, 'sleep');
    const child = subscriber.child;
    const before = forcedDisconnects();
    const publishing = publisher(context, pubsub, channel);
    await pause(1000);
    const subscriberIds = async (): Promise<Set<string>> =>
      new Set([...String(await admin.call('CLIENT', 'LIST', 'TYPE', 'pubsub')).matchAll(/^id=(\d+) /gm)].map((m) => m[1]));
    const original = await subscriberIds();
    child.signal('SIGSTOP');
    const stoppedAt = Date.now();
    const disconnectedAfter = await waitUntil(
      async () => ![...(await subscriberIds())].some((id) => original.has(id)),
      10_000,
      'Redis to disconnect the stalled subscriber',
    ).catch(() => Number.NaN);
    const killedAt = Date.now();
    child.signal('SIGCONT');
    const resubscribed = child.waitForLine(/^resubscribed (\d+)$/, 10_000).then(
      (m) => Number(m[1]) - killedAt,
      () => Number.NaN,
    );
    const receivedAgain = await child.waitForLine(/^received-after-resubscribe (\d+) (\d+)$/, 10_000).then(
      (m) => Number(m[2]) - killedAt,
      () => Number.NaN,
    );
    const resubscribedAfter = await resubscribed;
    // Still alive a second later: not a subscriber that reconnected and then went silent (node-redis#1114).
    await pause(1000);
    const published = await publishing.stop();
    const summary = await subscriber.summary(channel, 5000);
    const disconnects = forcedDisconnects() - before;
    const lost = summary ? missing(summary, published) : Number.NaN;
    const tail = summary ? summary.maxSeq === published - 1 : false;
    context.figures.stall = {
      stoppedForMs: killedAt - stoppedAt,
      disconnectedAfterMs: disconnectedAfter,
      disconnects,
      resubscribedAfterMs: resubscribedAfter,
      receivedAgainAfterMs: receivedAgain,
      published,
      lost,
      lastReceived: summary?.maxSeq,
      alive: child.running,
    };
    checks.push(
      check(
        'PS-2',
        `after Redis disconnects the subscriber for its output buffer (process SIGSTOPped until then, ${PER_SECOND} msg/s), it reconnects, re-subscribes, says so, and receives again within ${RECOVERY_BOUND_MS / 1000} s of the kill`,
        `disconnected ${Math.round(disconnectedAfter)} ms into the stall (output-buffer closes logged by Redis ${disconnects}); re-subscribed (warning logged) ${resubscribedAfter} ms and received again ${receivedAgain} ms after the kill`,
        disconnects >= 1 && resubscribedAfter >= 0 && receivedAgain >= 0 && receivedAgain <= RECOVERY_BOUND_MS,
      ),
      check(
        'PS-2',
        'no silent dead subscriber (node-redis#1114): the process is alive and still receiving a second after recovery (the last message published arrived)',
        `process alive ${child.running}; last published ${published - 1}, last received ${summary?.maxSeq ?? 'no answer'}`,
        child.running && tail,
      ),
      figure(
        'PS-1 PS-2',
        'messages lost across the forced disconnect (at-most-once is the documented contract: what Redis discarded with the output buffer and what was published before the re-subscription)',
        `${lost} of ${published}`,
      ),
    );
    return checks;
  },
};

// Helpers of the Streams scenarios (STREAMS-CRASH, STREAMS-SLOW): consumer child processes of
// test/fixtures/faults/stream-consumer.ts, their protocol lines, and what Redis holds for a group.
import type { Redis } from 'ioredis';
import { TsChild } from './child';

export const STREAM_CONSUMER_FIXTURE = 'test/fixtures/faults/stream-consumer.ts';

/** Settings of one consumer process (see the fixture for what each does). */
export interface ConsumerSettings {
  url: string;
  prefix: string;
  stream: string;
  group: string;
  batch: number;
  handlerMs: number;
  claimIdleMs: number;
  maxDeliveries: number;
  busyMs?: number;
  idempotencyPrefix?: string;
}

export function consumerEnv(settings: ConsumerSettings, consumer: string): Record<string, string> {
  return {
    REDIS_URL: settings.url,
    KEY_PREFIX: settings.prefix,
    STREAM: settings.stream,
    GROUP: settings.group,
    CONSUMER: consumer,
    BATCH_SIZE: String(settings.batch),
    HANDLER_MS: String(settings.handlerMs),
    CLAIM_IDLE_MS: String(settings.claimIdleMs),
    MAX_DELIVERIES: String(settings.maxDeliveries),
    BUSY_MS: String(settings.busyMs ?? 0),
    ...(settings.idempotencyPrefix ? { IDEMPOTENCY_PREFIX: settings.idempotencyPrefix } : {}),
  };
}

export function startConsumer(settings: ConsumerSettings, consumer: string): TsChild {
  return new TsChild(STREAM_CONSUMER_FIXTURE, consumerEnv(settings, consumer));
}

/** One protocol line of a consumer process, with the process (generation) and consumer name that printed it. */
export interface Handled {
  seq: number;
  deliveries: number;
  at: number;
  consumer: string;
}

export interface PoisonAttempt {
  mode: string;
  deliveries: number;
  at: number;
  consumer: string;
}

/** Parses the lines of a consumer process. */
export function linesOf(child: TsChild, consumer: string): { handled: Handled[]; poison: PoisonAttempt[]; busy: Handled[] } {
  const handled: Handled[] = [];
  const poison: PoisonAttempt[] = [];
  const busy: Handled[] = [];
  for (const line of child.lines) {
    const h = /^(handled|busy) (\d+) (\d+) (\d+)$/.exec(line);
    if (h) (h[1] === 'handled' ? handled : busy).push({ seq: Number(h[2]), deliveries: Number(h[3]), at: Number(h[4]), consumer });
    const p = /^poison (\w+) (\d+) (\d+)$/.exec(line);
    if (p) poison.push({ mode: p[1], deliveries: Number(p[2]), at: Number(p[3]), consumer });
  }
  return { handled, poison, busy };
}

/** The pending list of a group (optionally of one consumer): id → [consumer, deliveries] (XPENDING extended form). */
export async function pendingList(admin: Redis, key: string, group: string, consumer?: string): Promise<Map<string, [string, number]>> {
  const args: Array<string | number> = [key, group, '-', '+', 1_000_000];
  if (consumer) args.push(consumer);
  const rows = (await admin.call('XPENDING', ...args)) as Array<[string, string, number, number]>;
  return new Map(rows.map((row) => [row[0], [row[1], Number(row[3])]]));
}

export interface DeadLetterRow {
  id: string;
  fields: Record<string, string>;
}

export async function deadLetters(admin: Redis, key: string): Promise<DeadLetterRow[]> {
  return (await admin.xrange(key, '-', '+')).map(([id, flat]) => {
    const fields: Record<string, string> = {};
    for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i]] = flat[i + 1];
    return { id, fields };
  });
}

/** Times each seq was handled: seq → list of handlings (several = duplicates). */
export function bySeq(handled: readonly Handled[]): Map<number, Handled[]> {
  const calls = new Map<number, Handled[]>();
  for (const h of handled) {
    const list = calls.get(h.seq);
    if (list) list.push(h);
    else calls.set(h.seq, [h]);
  }
  return calls;
}

/**
 * A consumer "pod": one child process at a time under a consumer name, restarted when it dies (the supervisor of a
 * deployment would). Every generation's lines are kept, with the name it ran under.
 */
export class ConsumerSlot {
  readonly generations: Array<{ child: TsChild; consumer: string; exit?: string }> = [];
  private supervising = true;

  constructor(
    private readonly settings: ConsumerSettings,
    private readonly name: (generation: number) => string,
    private readonly autoRestart: boolean,
  ) {
    this.spawn();
  }

  get current(): TsChild {
    return this.generations[this.generations.length - 1].child;
  }

  get consumer(): string {
    return this.generations[this.generations.length - 1].consumer;
  }

  /** Process exits seen so far (a restart follows each while supervising). */
  get exits(): string[] {
    return this.generations.flatMap((g) => (g.exit ? [g.exit] : []));
  }

  /** SIGKILLs the current process, waits for its exit and starts the next generation (when asked to). */
  async kill(): Promise<{ consumer: string; killedAt: number }> {
    const { child, consumer } = this.generations[this.generations.length - 1];
    child.signal('SIGKILL');
    await child.exited;
    const killedAt = Date.now();
    if (!this.autoRestart) this.spawn();
    return { consumer, killedAt };
  }

  all(): { handled: Handled[]; poison: PoisonAttempt[]; busy: Handled[] } {
    const parts = this.generations.map((g) => linesOf(g.child, g.consumer));
    return {
      handled: parts.flatMap((p) => p.handled),
      poison: parts.flatMap((p) => p.poison),
      busy: parts.flatMap((p) => p.busy),
    };
  }

  /** Stops restarting, then SIGTERM (a graceful drain) and SIGKILL after `graceMs`. */
  async stop(graceMs: number): Promise<void> {
    this.supervising = false;
    const child = this.current;
    child.signal('SIGTERM');
    const exited = await Promise.race([child.exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), graceMs))]);
    if (!exited) await child.kill();
  }

  /** For context.defer: kills whatever runs. */
  async cleanup(): Promise<void> {
    this.supervising = false;
    await Promise.all(this.generations.map((g) => g.child.kill()));
  }

  private spawn(): void {
    const consumer = this.name(this.generations.length);
    const child = startConsumer(this.settings, consumer);
    const generation: { child: TsChild; consumer: string; exit?: string } = { child, consumer };
    this.generations.push(generation);
    void child.exited.then((code) => {
      generation.exit = code === null ? 'signal' : `exit ${code}`;
      if (this.autoRestart && this.supervising && this.current === child) this.spawn();
    });
  }
}

import type { Cluster, Redis } from 'ioredis';
import { now, pause } from './measure';

/** One write of the probe: when it left, when it settled, and how. */
export interface ProbeWrite {
  readonly seq: number;
  readonly key: string;
  readonly start: number;
  readonly end: number;
  readonly error?: string;
}

/** How writes went through a failover, measured from the fault (see {@link WriteProbe.recovery}). */
export interface WriteRecovery {
  /**
   * Ms from the fault to the acknowledgement of the first write that survived on the new master after which no write
   * failed and no acknowledged write was lost: when writes were back for good (a few ms when they never stopped).
   */
  resumeMs: number;
  /** Ms from the fault to the first acknowledged write after the last failed one (losses not considered). */
  firstOkMs: number;
  failed: number;
  readonly: number;
  /** Acknowledged writes (from one second before the fault) that the new master does not have. */
  lost: number;
  /** The first and last acknowledgement of a lost write, in ms from the fault (negative: before it); [] when none. */
  lostAckedMs: number[];
  acked: number;
  /** Longest time between two acknowledgements after the fault. */
  maxGapMs: number;
  messages: string[];
}

/**
 * A steady write load through one client: a SET with a TTL every `everyMs` (one at a time, so writes are totally
 * ordered), each recorded with its outcome, to measure how long writes stop during a failover and which acknowledged
 * writes the deployment lost (Jepsen's acknowledged-but-missing figure). Keys are test data under `prefix`.
 */
export class WriteProbe {
  readonly writes: ProbeWrite[] = [];
  private running = true;
  private readonly done: Promise<void>;

  constructor(
    client: Redis | Cluster,
    readonly prefix: string,
    everyMs = 2,
  ) {
    let seq = 0;
    this.done = (async () => {
      while (this.running) {
        const key = `${prefix}:${seq}`;
        const start = now();
        try {
          await client.set(key, '1', 'PX', 600_000);
          this.writes.push({ seq, key, start, end: now() });
        } catch (error) {
          this.writes.push({ seq, key, start, end: now(), error: (error as Error).message });
        }
        seq++;
        await pause(everyMs);
      }
    })();
  }

  /** The sequence number the next write will have. */
  get nextSeq(): number {
    return this.writes.length;
  }

  /** True once a write that left after `since` was acknowledged. */
  ackedAfter(since: number): boolean {
    for (let i = this.writes.length - 1; i >= 0 && this.writes[i].start >= since; i--) if (!this.writes[i].error) return true;
    return false;
  }

  /**
   * Writes between `since` (the fault) and `until`, checked against `survivor` (the new master, after quiescence):
   * acknowledged writes from one second before the fault on are looked up, since a crash loses what was acknowledged
   * just before it and not yet replicated.
   */
  async recovery(survivor: Redis, since: number, until: number): Promise<WriteRecovery> {
    const window = this.writes.filter((w) => w.start >= since - 1000 && w.start <= until);
    const acked = window.filter((w) => !w.error);
    const exists: number[] = [];
    for (let i = 0; i < acked.length; i += 1000) {
      const batch = acked.slice(i, i + 1000);
      const replies = await survivor.pipeline(batch.map((w) => ['exists', w.key])).exec();
      for (const [error, value] of replies ?? []) exists.push(error ? 0 : Number(value));
    }
    const lostWrites = acked.filter((_, i) => exists[i] === 0);
    const lostSeqs = new Set(lostWrites.map((w) => w.seq));
    const lostEnds = lostWrites.map((w) => w.end);
    const after = window.filter((w) => w.start >= since);
    const failures = after.filter((w) => w.error);
    const lastFailed = failures.reduce((s, w) => Math.max(s, w.seq), -1);
    const lastBad = Math.max(lastFailed, ...lostSeqs);
    const firstOk = after.find((w) => !w.error && w.seq > lastFailed);
    const durable = after.find((w) => !w.error && w.seq > lastBad);
    const acks = after.filter((w) => !w.error).map((w) => w.end);
    let maxGap = acks.length ? acks[0] - since : until - since;
    for (let i = 1; i < acks.length; i++) maxGap = Math.max(maxGap, acks[i] - acks[i - 1]);
    return {
      resumeMs: durable ? Math.round(durable.end - since) : Number.POSITIVE_INFINITY,
      firstOkMs: firstOk ? Math.round(firstOk.end - since) : Number.POSITIVE_INFINITY,
      failed: failures.length,
      readonly: failures.filter((w) => w.error!.startsWith('READONLY')).length,
      lost: lostSeqs.size,
      lostAckedMs: lostSeqs.size ? [Math.round(Math.min(...lostEnds) - since), Math.round(Math.max(...lostEnds) - since)] : [],
      acked: acked.length,
      maxGapMs: Math.round(maxGap),
      messages: [...new Set(failures.map((w) => w.error!.slice(0, 80)))].slice(0, 5),
    };
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.done;
  }
}

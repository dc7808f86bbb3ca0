import type { Cluster, Redis } from 'ioredis';
import { now, pause } from './measure';

/**
 * A steady write load (one SET with a TTL every `everyMs`) that records when writes fail and succeed, to measure how
 * long writes stop during a failover. Keys are test data under `prefix`, each with a TTL.
 */
export class WriteProbe {
  private running = true;
  private readonly done: Promise<void>;
  readonly successes: number[] = [];
  readonly failures: Array<{ at: number; message: string }> = [];
  readonly acknowledged: Array<{ key: string; at: number }> = [];

  constructor(client: Redis | Cluster, prefix: string, everyMs = 5) {
    let seq = 0;
    this.done = (async () => {
      while (this.running) {
        const key = `${prefix}:${seq++}`;
        const at = now();
        try {
          await client.set(key, '1', 'PX', 600_000);
          this.successes.push(now());
          this.acknowledged.push({ key, at: this.successes[this.successes.length - 1] });
        } catch (error) {
          this.failures.push({ at, message: (error as Error).message });
        }
        await pause(everyMs);
      }
    })();
  }

  /** Ms from `since` until the first successful write after it that follows the last failure (0 if none failed). */
  resumedAfter(since: number): { resumeMs: number; failed: number; maxGapMs: number; messages: string[] } {
    const failures = this.failures.filter((f) => f.at >= since);
    const lastFailure = failures.length ? failures[failures.length - 1].at : since;
    const next = this.successes.find((t) => t > lastFailure);
    const after = this.successes.filter((t) => t >= since);
    let maxGap = 0;
    for (let i = 1; i < after.length; i++) maxGap = Math.max(maxGap, after[i] - after[i - 1]);
    return {
      resumeMs: failures.length === 0 ? 0 : next === undefined ? Number.POSITIVE_INFINITY : Math.round(next - since),
      failed: failures.length,
      maxGapMs: Math.round(maxGap),
      messages: [...new Set(failures.map((f) => f.message.slice(0, 80)))].slice(0, 5),
    };
  }

  /**
   * Acknowledged writes since `since` that the deployment no longer has (Jepsen's figure), and when writes started
   * landing for good: the ack time of the first surviving write after the last lost or failed one.
   */
  async survivors(
    client: Redis | Cluster,
    since: number,
  ): Promise<{ lost: number; acked: number; durableAfterMs: number; lostUntilMs: number }> {
    const acked = this.acknowledged.filter((a) => a.at >= since);
    const exists = await Promise.all(acked.map((a) => client.exists(a.key)));
    let lastBad = this.failures.filter((f) => f.at >= since).reduce((t, f) => Math.max(t, f.at), since);
    acked.forEach((a, i) => exists[i] === 0 && (lastBad = Math.max(lastBad, a.at)));
    const firstGood = acked.find((a, i) => exists[i] === 1 && a.at > lastBad);
    const lostAt = acked.filter((_, i) => exists[i] === 0).map((a) => a.at - since);
    return {
      lostUntilMs: Math.round(lostAt.length ? Math.max(...lostAt) : 0),
      lost: exists.filter((e) => e === 0).length,
      acked: acked.length,
      durableAfterMs: firstGood ? Math.round(firstGood.at - since) : Number.POSITIVE_INFINITY,
    };
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.done;
  }
}

import type { RedisClient } from '../core/connections/redis-connections';
import { batchOfOne } from '../core/scripts/batched-script';
import { ensureDefined } from '../core/scripts/redis-script';
import { runBatched } from '../core/scripts/run-batched';
import type { LockKeys } from './lock-keys';
import type { AttemptResult, LockStore } from './lock-store.interface';
import { ACQUIRE_LOCK_SCRIPT } from './scripts/acquire-lock.script';
import { EXTEND_LOCK_SCRIPT } from './scripts/extend-lock.script';
import { RELEASE_LOCK_SCRIPT } from './scripts/release-lock.script';

/** Locks on one Redis deployment (standalone, sentinel-managed or cluster): acquire = 1 round trip, release = 1. */
export class SingleLockStore implements LockStore {
  constructor(
    private readonly client: RedisClient,
    private readonly fenceTtlMs: number,
    private readonly replication: { readonly replicas: number; readonly timeoutMs: number } = { replicas: 0, timeoutMs: 0 },
  ) {}

  attempt(keys: LockKeys, token: string, ttlMs: number): Promise<AttemptResult> {
    const cleanUp = (error: unknown): never => {
      this.releaseOrphan(keys, token, ttlMs);
      throw error;
    };
    if (this.replication.replicas > 0) return this.attemptWithWait(keys, token, ttlMs).catch(cleanUp);
    // The common case stays one promise deep: no async wrappers on the hot path.
    return runBatched(this.client, ACQUIRE_LOCK_SCRIPT, [keys.lock, keys.fence], [token, ttlMs, this.fenceTtlMs]).then(toAttemptResult, cleanUp);
  }

  /**
   * A timed-out acquire may still run when the server wakes up, leaving a lock nobody knows the token of for a
   * whole TTL. A compare-and-delete sent on the same connection queues behind it and cleans it up. When the
   * connection is already gone (a watchdog dropped it because the server stopped answering), the delete is sent
   * once more when the client is ready again, as long as the orphan could still exist (its TTL).
   */
  private releaseOrphan(keys: LockKeys, token: string, ttlMs: number): void {
    this.release(keys, token).catch(() => {
      const client = this.client;
      const retry = (): void => {
        clearTimeout(expiry);
        void this.release(keys, token).catch(() => false);
      };
      const expiry = setTimeout(() => client.off('ready', retry), ttlMs);
      expiry.unref();
      client.once('ready', retry);
    });
  }

  private async attemptWithWait(keys: LockKeys, token: string, ttlMs: number): Promise<AttemptResult> {
    const args = [token, ttlMs, this.fenceTtlMs];
    // WAIT must follow the script on the same connection (it counts replicas that acknowledged this connection's
    // writes), so both go in one pipeline: one round trip plus the replication delay.
    ensureDefined(this.client, ACQUIRE_LOCK_SCRIPT);
    const pipeline = this.client.pipeline() as unknown as Record<string, (...a: unknown[]) => unknown> & { exec(): Promise<Array<[Error | null, unknown]>> };
    pipeline[ACQUIRE_LOCK_SCRIPT.commandName](...batchOfOne([keys.lock, keys.fence], args));
    pipeline.wait(this.replication.replicas, this.replication.timeoutMs);
    const [[scriptError, replies], [waitError, acks]] = await pipeline.exec();
    if (scriptError) throw scriptError;
    const [reply] = replies as unknown[];
    if (reply instanceof Error) throw reply;
    const result = toAttemptResult(reply as [number, string | number]);
    if (!result.acquired) return result;
    if (waitError || Number(acks) < this.replication.replicas) {
      // Not durable enough to survive a failover: give it back rather than hand out a lock a promoted replica
      // would not know about.
      await this.release(keys, token);
      if (waitError) throw waitError;
      return { acquired: false, reason: 'replication', retryAfterMs: 0 };
    }
    return result;
  }

  extend(keys: LockKeys, token: string, ttlMs: number): Promise<boolean> {
    return runBatched(this.client, EXTEND_LOCK_SCRIPT, [keys.lock], [token, ttlMs]).then(isOne);
  }

  release(keys: LockKeys, token: string): Promise<boolean> {
    return runBatched(this.client, RELEASE_LOCK_SCRIPT, [keys.lock], [token]).then(isOne);
  }
}

function isOne(reply: number): boolean {
  return reply === 1;
}

/** Parses the acquire script's reply. */
export function toAttemptResult(reply: [number, string | number]): AttemptResult {
  if (Number(reply[0]) === 1) return { acquired: true, fencingToken: Number(reply[1]) };
  return { acquired: false, reason: 'contention', retryAfterMs: Math.max(0, Number(reply[1])) };
}

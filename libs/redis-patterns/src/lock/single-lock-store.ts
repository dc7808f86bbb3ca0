import type { RedisExecutor } from '../core/scripts/redis-executor';
import type { LockKeys } from './lock-keys';
import type { AttemptResult, LockStore } from './lock.store';
import { ACQUIRE_LOCK_SCRIPT } from './scripts/acquire-lock.script';
import { EXTEND_LOCK_SCRIPT } from './scripts/extend-lock.script';
import { RELEASE_LOCK_SCRIPT } from './scripts/release-lock.script';

const MAX_PENDING_ORPHANS = 10_000;

/** Locks on one Redis deployment (standalone, sentinel-managed or cluster): acquire = 1 round trip, release = 1. */
export class SingleLockStore implements LockStore {
  /** Locks whose acquire timed out and whose release could not be sent yet: token → keys. */
  private readonly orphans = new Map<string, LockKeys>();
  private awaitingReady = false;

  constructor(
    private readonly redis: RedisExecutor,
    private readonly fenceTtlMs: number,
    private readonly replication: { readonly replicas: number; readonly timeoutMs: number } = { replicas: 0, timeoutMs: 0 },
  ) {}

  attempt(keys: LockKeys, token: string, ttlMs: number): Promise<AttemptResult> {
    const cleanUp = (error: unknown): never => {
      this.releaseOrphan(keys, token, error);
      throw error;
    };
    if (this.replication.replicas > 0) return this.attemptWithWait(keys, token, ttlMs).catch(cleanUp);
    // The common case stays one promise deep: no async wrappers on the hot path.
    return this.redis
      .runBatched(ACQUIRE_LOCK_SCRIPT, [keys.lock, keys.fence], [token, ttlMs, this.fenceTtlMs])
      .then(toAttemptResult, cleanUp);
  }

  /**
   * A timed-out acquire may still run when the server wakes up, leaving a lock nobody knows the token of for a
   * whole TTL. A compare-and-delete sent on the same connection queues behind it and cleans it up. When that fails
   * too (the connection was dropped because the server stopped answering), the delete is sent again as soon as
   * the client is ready: by then the server has run whatever the old socket delivered, however long it was frozen.
   * (An earlier version gave up after one TTL from the failure, and a freeze longer than that left the orphan
   * in place for a whole TTL after Redis came back.)
   */
  private releaseOrphan(keys: LockKeys, token: string, error: unknown): void {
    // A send that was refused never reached the server: nothing to clean up later. A command that timed out, or that
    // was failed because its socket closed before the reply (MaxRetriesPerRequestError), may have been delivered.
    const maybeDelivered = error instanceof Error && (error.message === 'Command timed out' || error.name === 'MaxRetriesPerRequestError');
    this.release(keys, token).catch(() => maybeDelivered && this.releaseWhenReady(keys, token));
  }

  private releaseWhenReady(keys: LockKeys, token: string): void {
    // Bounded: beyond it, orphans expire with their TTL.
    if (this.orphans.size >= MAX_PENDING_ORPHANS) return;
    this.orphans.set(token, keys);
    if (this.awaitingReady) return;
    this.awaitingReady = true;
    this.redis.client.once('ready', () => {
      this.awaitingReady = false;
      const orphans = [...this.orphans];
      this.orphans.clear();
      for (const [orphanToken, orphanKeys] of orphans) {
        this.release(orphanKeys, orphanToken).catch(() => this.releaseWhenReady(orphanKeys, orphanToken));
      }
    });
  }

  private async attemptWithWait(keys: LockKeys, token: string, ttlMs: number): Promise<AttemptResult> {
    // WAIT must follow the script on the same connection: one round trip plus the replication delay.
    const { replicas, timeoutMs } = this.replication;
    const keysOf = [keys.lock, keys.fence];
    const args = [token, ttlMs, this.fenceTtlMs];
    const { reply, acks, waitError } = await this.redis.runThenWait(ACQUIRE_LOCK_SCRIPT, keysOf, args, replicas, timeoutMs);
    const result = toAttemptResult(reply);
    if (!result.acquired) return result;
    if (waitError || acks < replicas) {
      // Not durable enough to survive a failover: give it back rather than hand out a lock a promoted replica
      // would not know about.
      await this.release(keys, token);
      if (waitError) throw waitError;
      return { acquired: false, reason: 'replication', retryAfterMs: 0 };
    }
    return result;
  }

  extend(keys: LockKeys, token: string, ttlMs: number): Promise<boolean> {
    return this.redis.runBatched(EXTEND_LOCK_SCRIPT, [keys.lock], [token, ttlMs]).then(isOne);
  }

  release(keys: LockKeys, token: string): Promise<boolean> {
    return this.redis.runBatched(RELEASE_LOCK_SCRIPT, [keys.lock], [token]).then(isOne);
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

import { performance } from 'node:perf_hooks';
import { LockLostError } from './lock-lost.error';
import { checkMs } from './lock-keys';
import type { LockKeys } from './lock-keys';
import type { LeaseStore } from './lock.store';

/** What a Lock needs from the service that issued it. */
export interface LockContext {
  /** Extends and releases the lease (the lock itself, a read or write lease, a semaphore permit). */
  readonly store: LeaseStore;
  /** The part of a TTL not trusted because of clock drift between client and server(s), in ms. */
  driftMs(ttlMs: number): number;
  /** Called once the lock is released (or known lost), so the service stops tracking it. */
  forget(lock: Lock): void;
  /** Called after each successful extension. */
  extended(lock: Lock): void;
}

/**
 * A held lock. `token` identifies the owner (release and extend compare it in Redis); `fencingToken` increases
 * strictly with every acquisition of the resource, so a store that remembers the highest token it has seen can
 * refuse writes from a holder whose lock expired while it was paused (see the docs).
 *
 * Validity is tracked with a monotonic clock from the start of the successful attempt: `remainingMs` never
 * reports time the lock might already have lost in flight or to clock drift.
 */
export class Lock {
  private validUntil: number;
  private released = false;

  /** @internal Created by LockService. */
  constructor(
    readonly resource: string,
    readonly token: string,
    readonly fencingToken: number,
    /** @internal */
    readonly keys: LockKeys,
    private currentTtlMs: number,
    startedAt: number,
    private readonly context: LockContext,
  ) {
    this.validUntil = startedAt + currentTtlMs - context.driftMs(currentTtlMs);
  }

  /** The TTL of the last acquisition or extension, in ms. */
  get ttlMs(): number {
    return this.currentTtlMs;
  }

  /** How long the lock is still safely ours, in ms (0 once released or expired). */
  get remainingMs(): number {
    return this.released ? 0 : Math.max(0, this.validUntil - performance.now());
  }

  /** False once released, lost, or past its validity. */
  get isHeld(): boolean {
    return this.remainingMs > 0;
  }

  /**
   * Gives the lock back (compare-and-delete, one round trip). Resolves false when it was no longer ours (expired
   * or taken by another holder), whose lock stays untouched. Rejects only when Redis cannot be reached; the lock
   * then expires with its TTL.
   */
  async release(): Promise<boolean> {
    if (this.released) return false;
    const deleted = await this.context.store.release(this.keys, this.token);
    this.markGone();
    return deleted;
  }

  /**
   * Sets the lock's TTL to `ttlMs` from now (compare-and-PEXPIRE, one round trip) and resolves true. Rejects with
   * {@link LockLostError} when the lock is no longer ours; this handle stays the one to use after an extension.
   */
  async extend(ttlMs: number = this.currentTtlMs): Promise<true> {
    checkMs(ttlMs, 'ttlMs', 1);
    if (this.released) throw this.lostError('it was already released');
    const startedAt = performance.now();
    if (!(await this.context.store.extend(this.keys, this.token, ttlMs))) {
      this.markGone();
      throw this.lostError('it expired or another holder took it before the extension');
    }
    const validUntil = startedAt + ttlMs - this.context.driftMs(ttlMs);
    if (validUntil <= performance.now()) throw this.lostError('the extension arrived after its own validity ran out');
    this.currentTtlMs = ttlMs;
    this.validUntil = validUntil;
    this.context.extended(this);
    return true;
  }

  /** @internal The error that says this lease is lost (the AbortSignal's reason, the rejection of `extend`). */
  lostError(detail: string): LockLostError {
    return new LockLostError(this.resource, detail);
  }

  /** @internal How log lines name this lease. */
  get label(): string {
    return `lock "${this.resource}"`;
  }

  private markGone(): void {
    if (this.released) return;
    this.released = true;
    this.context.forget(this);
  }
}

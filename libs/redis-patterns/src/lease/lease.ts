import { performance } from 'node:perf_hooks';
import { checkMs } from './lease-arguments';
import type { LeaseKeys } from './lease-keys';
import type { LeaseStore } from './lease.store';

/**
 * What a lease needs from the service that issued it; `L` is the kind of lease the service hands out (its callbacks
 * receive that lease).
 */
export interface LeaseContext<L extends Lease = Lease> {
  /** Extends and releases the lease (a lock, a read or write lease, a semaphore permit, a leader lease). */
  readonly store: LeaseStore;
  /** The part of a TTL not trusted because of clock drift between client and server(s), in ms. */
  driftMs(ttlMs: number): number;
  /** Called once the lease is released (or known lost), so the service stops tracking it. */
  forget(lease: L): void;
  /** Called after each successful extension. */
  extended(lease: L): void;
}

/** The error a lease of type `L` is lost with (the AbortSignal's reason, the rejection of `extend`). */
export type LostOf<L extends Lease> = L extends Lease<infer TLost> ? TLost : Error;

/**
 * A held lease — a lock, a read or write lease, a semaphore permit, a leader lease. `token` identifies the owner
 * (release and extend compare it in Redis); `fencingToken` increases strictly with every acquisition of the resource,
 * so a store that remembers the highest token it has seen can refuse writes from a holder whose lease expired while
 * it was paused (see the docs).
 *
 * Validity is tracked with a monotonic clock from the start of the successful attempt: `remainingMs` never reports
 * time the lease might already have lost in flight or to clock drift. Each pattern names its leases and their loss:
 * `lostError` and `label`.
 */
export abstract class Lease<TLost extends Error = Error> {
  private validUntil: number;
  private released = false;

  /** @internal Created by the service that acquired it. */
  constructor(
    /** What the lease guards: the lock's resource, the semaphore's or the leader election's name. */
    readonly resource: string,
    /** The owner token: random per acquisition, compared in Redis by `extend` and `release`. */
    readonly token: string,
    /** Increases strictly with every acquisition of `resource`; give it to the store you write to (see the docs). */
    readonly fencingToken: number,
    /** @internal */
    readonly keys: LeaseKeys,
    private currentTtlMs: number,
    startedAt: number,
    private readonly context: LeaseContext,
  ) {
    this.validUntil = startedAt + currentTtlMs - context.driftMs(currentTtlMs);
  }

  /** The TTL of the last acquisition or extension, in ms. */
  get ttlMs(): number {
    return this.currentTtlMs;
  }

  /** How long the lease is still safely ours, in ms (0 once released or expired). */
  get remainingMs(): number {
    return this.released ? 0 : Math.max(0, this.validUntil - performance.now());
  }

  /** False once released, lost, or past its validity. */
  get isHeld(): boolean {
    return this.remainingMs > 0;
  }

  /**
   * Gives the lease back (owner-checked, one round trip). Resolves false when it was no longer ours (expired or taken
   * by another holder), whose lease stays untouched. Rejects only when Redis cannot be reached; the lease then expires
   * with its TTL.
   */
  release(): Promise<boolean> {
    if (this.released) return Promise.resolve(false);
    return this.context.store.release(this.keys, this.token).then((removed) => {
      // Still ours only if its validity had not ended either: that bound is below the server's expiry (measured from
      // before the acquisition was sent, less the clock drift), so a lease valid here was not expired in Redis when
      // the release ran. A shared lease's expired member may linger until pruned; this tells it from a held one.
      const held = removed && this.remainingMs > 0;
      this.markGone();
      return held;
    });
  }

  /**
   * Sets the lease's TTL to `ttlMs` from now (owner-checked, one round trip) and resolves true. Rejects with the
   * lease's lost error (a `LockLostError` for a lock) when the lease is no longer ours; this handle stays the one to
   * use after an extension.
   */
  async extend(ttlMs: number = this.currentTtlMs): Promise<true> {
    checkMs(ttlMs, 'ttlMs', 1);
    const lost = await this.renew(ttlMs);
    if (lost) throw lost;
    return true;
  }

  /**
   * @internal One extension to `ttlMs` (already checked): resolves undefined once extended, or with the lost error
   * when the lease is known lost; rejects when the store cannot decide (a transient failure).
   */
  async renew(ttlMs: number): Promise<TLost | undefined> {
    if (this.released) return this.lostError('it was already released');
    const startedAt = performance.now();
    if (!(await this.context.store.extend(this.keys, this.token, ttlMs))) {
      this.markGone();
      return this.lostError('it expired or another holder took it before the extension');
    }
    const validUntil = startedAt + ttlMs - this.context.driftMs(ttlMs);
    if (validUntil <= performance.now()) return this.lostError('the extension arrived after its own validity ran out');
    this.currentTtlMs = ttlMs;
    this.validUntil = validUntil;
    this.context.extended(this);
    return undefined;
  }

  /** @internal The error that says this lease is lost (the AbortSignal's reason, the rejection of `extend`). */
  abstract lostError(detail: string): TLost;

  /** @internal How log lines name this lease. */
  abstract get label(): string;

  private markGone(): void {
    if (this.released) return;
    this.released = true;
    this.context.forget(this);
  }
}

import { performance } from 'node:perf_hooks';
import { Inject, Injectable } from '@nestjs/common';
import { KeyBuilder } from '../core/keys/key-builder';
import { InvalidArgumentError } from '../errors/invalid-argument.error';
import type { AcquireOptions, TryAcquireOptions } from '../lease/acquire-options';
import { attemptUntil, type Refusal } from '../lease/backoff';
import { checkMs, checkResource } from '../lease/lease-arguments';
import type { LeaseKeys } from '../lease/lease-keys';
import { refusalIn } from '../lease/refusal-in';
import { TokenSource } from '../lease/token-source';
import { LEASE_SETTINGS, type LeaseSettings } from '../lease/lease.options';
import { RedisRefusedError } from '../errors/redis-refused.error';
import { Permit } from './permit';
import { type PermitFailureReason, PermitNotAcquiredError } from './permit-not-acquired.error';
import { checkPermits, semaphoreKeys } from './semaphore-keys';
import { SemaphoreRuntime } from './semaphore.runtime';
import { SEMAPHORE_STORE, type SemaphoreStore } from './semaphore.store';

type Failure = Refusal<PermitFailureReason>;

/** Owner tokens of every SemaphoreService of the process. */
const tokens = new TokenSource();

/**
 * Distributed semaphores on Redis: at most `permits` holders of a semaphore (its `resource`) at once across every
 * instance.
 * Each permit has an owner token, a TTL and a fencing token (one counter per semaphore); a crashed holder's permit
 * frees itself at its TTL, by the server's clock. Acquire = 1 round trip (prune, count, add, fence in one script),
 * release = 1. `using()` extends the permit while the work runs and aborts its signal if the permit is lost. It
 * fails closed: when Redis cannot answer, acquisition throws and nothing runs. Settings come from the `lock` section
 * (connection, `defaultTtlMs`, backoff, `autoExtendRatio`, `driftFactor`, `fenceTtlMs`).
 *
 * @example
 * await semaphores.using('pdf-render', 3, async (signal, permit) => {
 *   await renderer.render(job, { signal });
 * }, { ttlMs: 30_000, waitMs: 5_000 });
 */
@Injectable()
export class SemaphoreService {
  /** Created by the module's dependency injection; not part of the public API. @internal */
  constructor(
    private readonly keys: KeyBuilder,
    @Inject(LEASE_SETTINGS) private readonly settings: LeaseSettings,
    @Inject(SEMAPHORE_STORE) private readonly store: SemaphoreStore,
    private readonly runtime: SemaphoreRuntime,
  ) {}

  /**
   * One attempt (one round trip): a permit, or null when `permits` holders have one. Rejects with
   * {@link PermitNotAcquiredError} when Redis does not answer within the command timeout (reason `unavailable`), and
   * with {@link RedisRefusedError} when Redis refused the command (a configuration error: ACL, key type).
   */
  async tryAcquire(resource: string, permits: number, options: TryAcquireOptions = {}): Promise<Permit | null> {
    const keys = this.keysOf(resource, permits);
    const startedAt = performance.now();
    const outcome = await this.measured(startedAt, this.attempt(resource, permits, keys, this.ttlOf(options)));
    return outcome instanceof Permit ? outcome : null;
  }

  /**
   * Acquires a permit, waiting up to `waitMs` with the lock's backoff (never longer than the first holder's
   * remaining TTL; a release by this process wakes a local waiter at once). Rejects with
   * {@link PermitNotAcquiredError} when the wait ends (`contention`: 409 over HTTP) or Redis is unavailable, and with
   * {@link RedisRefusedError} when Redis refused the command (503 over HTTP, details only in the log).
   */
  async acquire(resource: string, permits: number, options: AcquireOptions = {}): Promise<Permit> {
    const keys = this.keysOf(resource, permits);
    const ttlMs = this.ttlOf(options);
    const waitMs = options.waitMs === undefined ? 0 : checkMs(options.waitMs, 'waitMs', 0);
    const startedAt = performance.now();
    const outcome = await this.measured(
      startedAt,
      attemptUntil<Permit, Failure>(
        () => this.attempt(resource, permits, keys, ttlMs),
        (o): o is Permit => o instanceof Permit,
        startedAt + waitMs,
        this.settings,
        (ms) => this.runtime.waiters.sleep(keys.lease, ms),
      ),
    );
    if (outcome instanceof Permit) return outcome;
    throw new PermitNotAcquiredError(resource, permits, outcome.reason, outcome.retryAfterMs);
  }

  /**
   * Runs `work` holding a permit: acquires it (see {@link SemaphoreService.acquire}), extends it every
   * `ttlMs × lock.autoExtendRatio` while `work` runs, aborts `signal` with a PermitLostError as soon as the permit is
   * known lost, and releases it when `work` settles. The result or error of `work` propagates unchanged.
   */
  async using<T>(
    resource: string,
    permits: number,
    work: (signal: AbortSignal, permit: Permit) => Promise<T> | T,
    options: AcquireOptions = {},
  ): Promise<T> {
    if (typeof work !== 'function') throw new InvalidArgumentError('work', 'expected a function (signal, permit) => result');
    const permit = await this.acquire(resource, permits, options);
    return this.runtime.leases.run(permit, work);
  }

  /** Permits this instance holds now (for diagnostics). */
  heldPermits(): readonly Permit[] {
    return this.runtime.leases.list();
  }

  private async attempt(resource: string, permits: number, keys: LeaseKeys, ttlMs: number): Promise<Permit | Failure> {
    if (this.runtime.closing) throw new PermitNotAcquiredError(resource, permits, 'shutdown', 1000);
    const token = tokens.take();
    const startedAt = performance.now();
    let result;
    try {
      result = await this.store.attempt(keys, token, ttlMs, permits);
    } catch (error) {
      // Fail closed (invariant 6): no answer means no permit. A refusal (NOPERM, WRONGTYPE …) is a configuration
      // error, thrown as is so the permission or key at fault is named.
      throw refusalIn(error) ?? new PermitNotAcquiredError(resource, permits, 'unavailable', 1000, { cause: error });
    }
    if (!result.acquired) return { reason: 'contention', retryAfterMs: result.retryAfterMs };
    const permit = new Permit(resource, permits, token, result.fencingToken, keys, ttlMs, startedAt, this.runtime.context);
    this.runtime.leases.add(permit, startedAt);
    if (!permit.isHeld) {
      // The reply came back after the permit's validity: its place may already be someone else's. Give it back.
      await this.runtime.leases.releaseQuietly(permit);
      return { reason: 'expired', retryAfterMs: 0 };
    }
    return permit;
  }

  /** The outcome of an acquisition that began at `startedAt`, recorded in the metrics. */
  private async measured(startedAt: number, acquisition: Promise<Permit | Failure>): Promise<Permit | Failure> {
    try {
      const outcome = await acquisition;
      this.runtime.metrics.acquisition(outcome instanceof Permit ? 'acquired' : outcome.reason, startedAt);
      return outcome;
    } catch (error) {
      if (error instanceof PermitNotAcquiredError) this.runtime.metrics.acquisition(error.reason, startedAt);
      else if (error instanceof RedisRefusedError) this.runtime.metrics.acquisition('refused', startedAt);
      throw error;
    }
  }

  private keysOf(resource: string, permits: number): LeaseKeys {
    checkResource(resource);
    checkPermits(permits);
    return semaphoreKeys(this.keys, resource);
  }

  private ttlOf(options: TryAcquireOptions): number {
    return options.ttlMs === undefined ? this.settings.defaultTtlMs : checkMs(options.ttlMs, 'ttlMs', 1);
  }
}

import { Inject, Injectable } from '@nestjs/common';
import { KeyBuilder } from '../core/keys/key-builder';
import { InvalidArgumentError } from '../errors/invalid-argument.error';
import type { AcquireOptions, TryAcquireOptions } from '../lease/acquire-options';
import { checkMs, checkResource } from '../lease/lease-arguments';
import type { LeaseRequest } from '../lease/lease-runtime';
import { LEASE_SETTINGS, type LeaseSettings } from '../lease/lease.options';
import { Permit } from './permit';
import { type PermitFailureReason, PermitNotAcquiredError } from './permit-not-acquired.error';
import { checkPermits, semaphoreKeys } from './semaphore-keys';
import { SemaphoreRuntime } from './semaphore.runtime';
import { SEMAPHORE_STORE, type SemaphoreStore } from './semaphore.store';

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
  tryAcquire(resource: string, permits: number, options: TryAcquireOptions = {}): Promise<Permit | null> {
    try {
      return this.runtime
        .tryAcquire(this.request(resource, permits, options))
        .then((outcome) => (outcome instanceof Permit ? outcome : null));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Acquires a permit, waiting up to `waitMs` with the lock's backoff (never longer than the first holder's
   * remaining TTL; a release by this process wakes a local waiter at once). Rejects with
   * {@link PermitNotAcquiredError} when the wait ends (`contention`: 409 over HTTP) or Redis is unavailable, and with
   * {@link RedisRefusedError} when Redis refused the command (503 over HTTP, details only in the log).
   */
  acquire(resource: string, permits: number, options: AcquireOptions = {}): Promise<Permit> {
    try {
      const request = this.request(resource, permits, options);
      return this.runtime.acquire(request, options.waitMs === undefined ? 0 : checkMs(options.waitMs, 'waitMs', 0));
    } catch (error) {
      return Promise.reject(error);
    }
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

  /** One acquisition of a permit of `resource` (checked here: invalid arguments throw before any round trip). */
  private request(resource: string, permits: number, options: TryAcquireOptions): LeaseRequest<Permit> {
    checkResource(resource);
    checkPermits(permits);
    const ttlMs = this.ttlOf(options);
    const keys = semaphoreKeys(this.keys, resource);
    const context = this.runtime.context;
    return {
      send: (token) => this.store.attempt(keys, token, ttlMs, permits),
      grant: (token, fencingToken, startedAt) => new Permit(resource, permits, token, fencingToken, keys, ttlMs, startedAt, context),
      // A semaphore's store never answers `replication` (no WAIT): its reasons are a permit's.
      notAcquired: (reason, retryAfterMs, options) =>
        new PermitNotAcquiredError(resource, permits, reason as PermitFailureReason, retryAfterMs, options),
      waitKey: keys.lease,
    };
  }

  private ttlOf(options: TryAcquireOptions): number {
    return options.ttlMs === undefined ? this.settings.defaultTtlMs : checkMs(options.ttlMs, 'ttlMs', 1);
  }
}

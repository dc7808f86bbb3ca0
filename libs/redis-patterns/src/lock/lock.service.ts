import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { KeyBuilder } from '../core/keys/key-builder';
import type { ResolvedRedisPatternsOptions } from '../redis-patterns.options';
import { InvalidArgumentError } from '../errors/invalid-argument.error';
import { InvalidOptionsError } from '../errors/invalid-options.error';
import { LockNotAcquiredError } from '../lease/lock-not-acquired.error';
import { RESOLVED_OPTIONS } from '../redis-patterns.constants';
import type { AcquireOptions, TryAcquireOptions } from '../lease/acquire-options';
import { checkMs, checkResource } from '../lease/lease-arguments';
import type { LeaseKeys } from '../lease/lease-keys';
import { leaseTokens, type LeaseRequest } from '../lease/lease-runtime';
import { Lock } from './lock';
import { lockKeys, readWriteKeys } from './lock-keys';
import { LEASE_SETTINGS, type LeaseSettings } from '../lease/lease.options';
import { LockRuntime } from './lock.runtime';
import { type LeaseSide, LOCK_STORE, type LockStore } from './lock.store';
import { type ReadWriteHost, ReadWriteLock } from './read-write-lock';
import { READ_WRITE_STORE, type ReadWriteStore } from './read-write-lock.store';

/**
 * Distributed locks on Redis: SET NX PX with a random owner token and a fencing token (acquire = 1 round trip),
 * compare-and-delete release (1 round trip), compare-and-PEXPIRE extension, auto-extension in `using()`, and an
 * optional Redlock quorum. It fails closed: when Redis cannot answer, acquisition throws and nothing runs.
 *
 * @example
 * await locks.using(`invoice:${id}`, async (signal, lock) => {
 *   await ledger.write(entry, { fencingToken: lock.fencingToken, signal });
 * }, { ttlMs: 10_000, waitMs: 2_000 });
 */
@Injectable()
export class LockService implements OnModuleInit {
  /** The mutex: SET NX PX on the resource's lock key. */
  private readonly mutex: LeaseSide;
  private readonly readWriteHost: ReadWriteHost;

  /** Created by the module's dependency injection; not part of the public API. @internal */
  constructor(
    @Inject(RESOLVED_OPTIONS) private readonly moduleOptions: ResolvedRedisPatternsOptions,
    private readonly keys: KeyBuilder,
    @Inject(LEASE_SETTINGS) private readonly options: LeaseSettings,
    @Inject(LOCK_STORE) store: LockStore,
    @Inject(READ_WRITE_STORE) readWriteStore: ReadWriteStore,
    private readonly runtime: LockRuntime,
  ) {
    this.mutex = {
      context: runtime.contextOf(store, (lock) => lock.keys.lease),
      attempt: (keys, token, ttlMs) => store.attempt(keys, token, ttlMs),
      waitKey: (keys) => keys.lease,
    };
    // Read and write leases of a resource wait on its fencing counter's key, so any release of the resource wakes them.
    const wakeKey = (lock: Lock): string => lock.keys.fence;
    this.readWriteHost = {
      store: readWriteStore,
      readContext: runtime.contextOf(readWriteStore.reads, wakeKey),
      writeContext: runtime.contextOf(readWriteStore.writes, wakeKey),
      // It must outlive the gap between two attempts of a waiting writer: a backoff sleep plus one round trip.
      waitMarkTtlMs: 2 * this.options.maxRetryDelayMs + moduleOptions.commandTimeoutMs,
      waiterId: () => leaseTokens.take(),
      tryAcquire: (resource, keys, options, side) => this.tryAcquireLease(resource, keys, this.ttlOf(options), side),
      acquire: (resource, keys, options, side) => this.acquireLease(resource, keys, options, side),
      run: (lease, work) => runtime.leases.run(lease, work),
    };
  }

  /** Checks what the section validator cannot see: the WAIT deadline must fit in the command deadline. */
  onModuleInit(): void {
    const { waitReplicas, waitReplicasTimeoutMs } = this.options;
    if (waitReplicas > 0 && waitReplicasTimeoutMs >= this.moduleOptions.commandTimeoutMs) {
      throw new InvalidOptionsError(
        'lock.waitReplicasTimeoutMs',
        `an integer below commandTimeoutMs (${this.moduleOptions.commandTimeoutMs}) (ms)`,
        String(waitReplicasTimeoutMs),
      );
    }
  }

  /**
   * One attempt (one round trip): the lock, or null when another holder has it. Rejects with
   * {@link LockNotAcquiredError} when Redis does not answer within the command timeout (reason `unavailable`) or
   * too few replicas acknowledged the lock (`replication`); with {@link RedisRefusedError} when Redis refused the
   * command for a configuration reason (an ACL permission missing, a key of another type).
   */
  async tryAcquire(resource: string, options: TryAcquireOptions = {}): Promise<Lock | null> {
    checkResource(resource);
    return this.tryAcquireLease(resource, lockKeys(this.keys, resource), this.ttlOf(options), this.mutex);
  }

  private tryAcquireLease(resource: string, keys: LeaseKeys, ttlMs: number, side: LeaseSide): Promise<Lock | null> {
    return this.runtime.tryAcquire(this.request(resource, keys, ttlMs, side)).then((outcome) => {
      if (outcome instanceof Lock) return outcome;
      if (outcome.reason === 'replication') throw new LockNotAcquiredError(resource, outcome.reason, outcome.retryAfterMs);
      return null;
    });
  }

  /**
   * Acquires the lock, waiting up to `waitMs` with exponential backoff and jitter (never longer than the holder's
   * remaining TTL; a release by this process wakes a local waiter at once). Rejects with
   * {@link LockNotAcquiredError} when the wait ends or Redis is unavailable, and with {@link RedisRefusedError} when
   * Redis refused the command (a configuration error). Never returns an expired lock.
   */
  acquire(resource: string, options: AcquireOptions = {}): Promise<Lock> {
    try {
      checkResource(resource);
      return this.acquireLease(resource, lockKeys(this.keys, resource), options, this.mutex);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  private acquireLease(resource: string, keys: LeaseKeys, options: AcquireOptions, side: LeaseSide): Promise<Lock> {
    const ttlMs = this.ttlOf(options);
    const waitMs = options.waitMs === undefined ? 0 : checkMs(options.waitMs, 'waitMs', 0);
    return this.runtime.acquire(this.request(resource, keys, ttlMs, side), waitMs);
  }

  /**
   * Runs `work` under the lock: acquires it (see {@link LockService.acquire}), extends it every
   * `ttlMs × autoExtendRatio` while `work` runs, aborts `signal` with a {@link LockLostError} as soon as the lock
   * is known lost (an extension finds it gone, or its validity ends without one), and releases it when `work`
   * settles. The result or error of `work` propagates unchanged; a failed release is logged, never thrown.
   */
  async using<T>(resource: string, work: (signal: AbortSignal, lock: Lock) => Promise<T> | T, options: AcquireOptions = {}): Promise<T> {
    if (typeof work !== 'function') throw new InvalidArgumentError('work', 'expected a function (signal, lock) => result');
    const lock = await this.acquire(resource, options);
    return this.runtime.leases.run(lock, work);
  }

  /**
   * A read-write lock on `resource`: many readers at once, or one writer. Writers are preferred: once a writer waits,
   * new readers wait too, so a stream of readers cannot starve it. Read and write leases take their fencing tokens from
   * the resource's counter, the one this service's mutex uses, so a write's token is comparable with the mutex's.
   * The read-write lock and the mutex of one resource are separate locks: holding one does not exclude the other.
   *
   * @example
   * const catalog = locks.readWrite('catalog');
   * const price = await catalog.read(() => prices.get(sku), { waitMs: 1_000 });
   * await catalog.write((signal, lease) => prices.reload({ fencingToken: lease.fencingToken, signal }), { ttlMs: 10_000, waitMs: 5_000 });
   * @throws InvalidArgumentError when `resource` is not a non-empty string, or in Redlock mode (read-write locks run on
   * one deployment).
   */
  readWrite(resource: string): ReadWriteLock {
    checkResource(resource);
    if (this.options.redlock) {
      throw new InvalidArgumentError('resource', 'read-write locks run on one Redis deployment, and lock.redlock is configured');
    }
    return new ReadWriteLock(resource, readWriteKeys(this.keys, resource), this.readWriteHost);
  }

  /**
   * The lock held by the `using()` work or `@WithLock` method currently running (the innermost one when nested),
   * e.g. to pass its `fencingToken` to a store from inside a decorated method; undefined outside one.
   */
  current(): Lock | undefined {
    return this.runtime.held()?.lock;
  }

  /** The abort signal of {@link LockService.current}: it aborts with a LockLostError when that lock is lost. */
  currentSignal(): AbortSignal | undefined {
    return this.runtime.held()?.signal;
  }

  /** Locks this instance holds now (for diagnostics). */
  heldLocks(): readonly Lock[] {
    return this.runtime.leases.list();
  }

  /** One acquisition of `side`'s lease of `resource` (the mutex, a read or a write lease). */
  private request(resource: string, keys: LeaseKeys, ttlMs: number, side: LeaseSide): LeaseRequest<Lock> {
    return {
      send: (token) => side.attempt(keys, token, ttlMs),
      grant: (token, fencingToken, startedAt) => new Lock(resource, token, fencingToken, keys, ttlMs, startedAt, side.context),
      notAcquired: (reason, retryAfterMs, options) => new LockNotAcquiredError(resource, reason, retryAfterMs, options),
      waitKey: side.waitKey(keys),
    };
  }

  private ttlOf(options: TryAcquireOptions): number {
    return options.ttlMs === undefined ? this.options.defaultTtlMs : checkMs(options.ttlMs, 'ttlMs', 1);
  }
}

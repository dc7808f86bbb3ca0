import { performance } from 'node:perf_hooks';
import { ScopedContext } from '../core/context/scoped-context';
import { type BeforeApplicationShutdown, Inject, Injectable, Logger, type LoggerService, type OnModuleInit } from '@nestjs/common';
import { KeyBuilder } from '../core/keys/key-builder';
import type { ResolvedRedisPatternsOptions } from '../redis-patterns.options';
import { InvalidArgumentError } from '../errors/invalid-argument.error';
import { InvalidOptionsError } from '../errors/invalid-options.error';
import { type LockFailureReason, LockNotAcquiredError } from '../lease/lock-not-acquired.error';
import { RESOLVED_OPTIONS } from '../redis-patterns.constants';
import type { AcquireOptions, TryAcquireOptions } from '../lease/acquire-options';
import { attemptUntil, type Refusal } from '../lease/backoff';
import { HeldLeases } from '../lease/held-leases';
import type { LeaseContext } from '../lease/lease';
import { checkMs, checkResource } from '../lease/lease-arguments';
import type { LeaseKeys } from '../lease/lease-keys';
import { LeaseMetrics } from '../lease/lease.metrics';
import type { LeaseStore } from '../lease/lease.store';
import { LocalWaiters } from '../lease/local-waiters';
import { refusalIn } from '../lease/refusal-in';
import { TokenSource } from '../lease/token-source';
import { Lock } from './lock';
import { lockKeys, readWriteKeys } from './lock-keys';
import { LEASE_SETTINGS, type LeaseSettings } from '../lease/lease.options';
import { LOCK_METRICS } from './lock.metrics';
import { LockTracing } from './lock.tracing';
import { type LeaseSide, LOCK_STORE, type LockStore } from './lock.store';
import { type ReadWriteHost, ReadWriteLock } from './read-write-lock';
import { READ_WRITE_STORE, type ReadWriteStore } from './read-write-lock.store';
import { RedisRefusedError } from '../errors/redis-refused.error';

/** The work of `using()`: `signal` aborts (reason: a LockLostError) as soon as the lock is known to be lost. */
export type LockedWork<T> = (signal: AbortSignal, lock: Lock) => Promise<T> | T;

type Failure = Refusal<LockFailureReason>;

/** The innermost lock held by the running `using()` work or `@WithLock` method, per async context. */
const heldContext = new ScopedContext<{ readonly lock: Lock; readonly signal: AbortSignal }>();

/** Owner tokens for every LockService of the process (one pool of crypto-random bytes, refilled in the background). */
const tokens = new TokenSource();

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
export class LockService implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger: LoggerService;
  private readonly leases: HeldLeases<Lock>;
  private readonly waiters = new LocalWaiters();
  /** The mutex: SET NX PX on the resource's lock key. */
  private readonly mutex: LeaseSide;
  private readonly readWriteHost: ReadWriteHost;
  private closing = false;
  private readonly metrics = new LeaseMetrics(LOCK_METRICS);
  private readonly tracing = new LockTracing();

  /** Created by the module's dependency injection; not part of the public API. @internal */
  constructor(
    @Inject(RESOLVED_OPTIONS) private readonly moduleOptions: ResolvedRedisPatternsOptions,
    private readonly keys: KeyBuilder,
    @Inject(LEASE_SETTINGS) private readonly options: LeaseSettings,
    @Inject(LOCK_STORE) store: LockStore,
    @Inject(READ_WRITE_STORE) readWriteStore: ReadWriteStore,
  ) {
    this.logger = moduleOptions.logger ?? new Logger('RedisPatterns:Lock');
    this.leases = new HeldLeases<Lock>({
      autoExtendRatio: this.options.autoExtendRatio,
      logger: this.logger,
      logContext: 'LockService',
      lost: () => this.metrics.lost(),
      tracing: this.tracing,
      enter: (lock, signal, work) => heldContext.run({ lock, signal }, work),
    });
    this.mutex = {
      context: this.contextOf(store, (lock) => lock.keys.lease),
      attempt: (keys, token, ttlMs) => store.attempt(keys, token, ttlMs),
      waitKey: (keys) => keys.lease,
    };
    // Read and write leases of a resource wait on its fencing counter's key, so any release of the resource wakes them.
    const wakeKey = (lock: Lock): string => lock.keys.fence;
    this.readWriteHost = {
      store: readWriteStore,
      readContext: this.contextOf(readWriteStore.reads, wakeKey),
      writeContext: this.contextOf(readWriteStore.writes, wakeKey),
      // It must outlive the gap between two attempts of a waiting writer: a backoff sleep plus one round trip.
      waitMarkTtlMs: 2 * this.options.maxRetryDelayMs + moduleOptions.commandTimeoutMs,
      waiterId: () => tokens.take(),
      tryAcquire: (resource, keys, options, side) => this.tryAcquireLease(resource, keys, this.ttlOf(options), side),
      acquire: (resource, keys, options, side) => this.acquireLease(resource, keys, options, side),
      run: (lease, work) => this.runHeld(lease, work),
    };
  }

  /** The context of the leases a store extends and releases; a release wakes a local waiter of `wakeKey`. */
  private contextOf(store: LeaseStore, wakeKey: (lock: Lock) => string): LeaseContext<Lock> {
    const driftFactor = this.options.driftFactor;
    return {
      store,
      driftMs: (ttlMs) => Math.ceil(ttlMs * driftFactor) + 2,
      forget: (lock) => {
        const acquiredAt = this.leases.delete(lock);
        this.waiters.wakeOne(wakeKey(lock));
        if (acquiredAt !== undefined) this.metrics.released(acquiredAt);
      },
      extended: () => this.metrics.extended(),
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

  private async tryAcquireLease(resource: string, keys: LeaseKeys, ttlMs: number, side: LeaseSide): Promise<Lock | null> {
    const startedAt = performance.now();
    const outcome = await this.measured(startedAt, this.attempt(resource, keys, ttlMs, side));
    if (outcome instanceof Lock) return outcome;
    if (outcome.reason === 'replication') throw new LockNotAcquiredError(resource, outcome.reason, outcome.retryAfterMs);
    return null;
  }

  /**
   * Acquires the lock, waiting up to `waitMs` with exponential backoff and jitter (never longer than the holder's
   * remaining TTL; a release by this process wakes a local waiter at once). Rejects with
   * {@link LockNotAcquiredError} when the wait ends or Redis is unavailable, and with {@link RedisRefusedError} when
   * Redis refused the command (a configuration error). Never returns an expired lock.
   */
  async acquire(resource: string, options: AcquireOptions = {}): Promise<Lock> {
    checkResource(resource);
    return this.acquireLease(resource, lockKeys(this.keys, resource), options, this.mutex);
  }

  private acquireLease(resource: string, keys: LeaseKeys, options: AcquireOptions, side: LeaseSide): Promise<Lock> {
    const ttlMs = this.ttlOf(options);
    const waitMs = options.waitMs === undefined ? 0 : checkMs(options.waitMs, 'waitMs', 0);
    const startedAt = performance.now();
    return this.measured(startedAt, this.acquireWithin(resource, keys, ttlMs, startedAt + waitMs, side)) as Promise<Lock>;
  }

  private async acquireWithin(resource: string, keys: LeaseKeys, ttlMs: number, deadline: number, side: LeaseSide): Promise<Lock> {
    const waitKey = side.waitKey(keys);
    const outcome = await attemptUntil<Lock, Failure>(
      () => this.attempt(resource, keys, ttlMs, side),
      (o): o is Lock => o instanceof Lock,
      deadline,
      this.options,
      (ms) => this.waiters.sleep(waitKey, ms),
    );
    if (outcome instanceof Lock) return outcome;
    throw new LockNotAcquiredError(resource, outcome.reason, outcome.retryAfterMs);
  }

  /**
   * Runs `work` under the lock: acquires it (see {@link LockService.acquire}), extends it every
   * `ttlMs × autoExtendRatio` while `work` runs, aborts `signal` with a {@link LockLostError} as soon as the lock
   * is known lost (an extension finds it gone, or its validity ends without one), and releases it when `work`
   * settles. The result or error of `work` propagates unchanged; a failed release is logged, never thrown.
   */
  async using<T>(resource: string, work: LockedWork<T>, options: AcquireOptions = {}): Promise<T> {
    if (typeof work !== 'function') throw new InvalidArgumentError('work', 'expected a function (signal, lock) => result');
    const lock = await this.acquire(resource, options);
    return this.runHeld(lock, work);
  }

  /**
   * @internal Runs work under an already acquired lock, with auto-extension, then releases it; inside a trace, in a
   * hold span (`method`: the `Class.method` of a `@WithLock` method).
   */
  runHeld<T>(lock: Lock, work: LockedWork<T>, method?: string): Promise<T> {
    return this.leases.run(lock, work, method);
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
    return heldContext.get()?.lock;
  }

  /** The abort signal of {@link LockService.current}: it aborts with a LockLostError when that lock is lost. */
  currentSignal(): AbortSignal | undefined {
    return heldContext.get()?.signal;
  }

  /** Locks this instance holds now (for diagnostics). */
  heldLocks(): readonly Lock[] {
    return this.leases.list();
  }

  /**
   * At shutdown: refuse new locks, give running `using()` work up to `shutdownTimeoutMs` to finish, abort the
   * rest, then release every lock still held — before the connections close.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.closing = true;
    this.waiters.wakeAll();
    await this.leases.close(this.moduleOptions.shutdownTimeoutMs);
  }

  private async attempt(resource: string, keys: LeaseKeys, ttlMs: number, side: LeaseSide): Promise<Lock | Failure> {
    if (this.closing) throw new LockNotAcquiredError(resource, 'shutdown', 1000);
    const token = tokens.take();
    const startedAt = performance.now();
    let result;
    try {
      result = await side.attempt(keys, token, ttlMs);
    } catch (error) {
      // Fail closed (invariant 6): no answer means no lock, never "probably free". A refusal (NOPERM, WRONGTYPE …)
      // is not an outage: it is thrown as is, so the permission or key at fault is named, not "unavailable".
      throw refusalIn(error) ?? new LockNotAcquiredError(resource, 'unavailable', 1000, { cause: error });
    }
    if (!result.acquired) return result;
    const lock = new Lock(resource, token, result.fencingToken, keys, ttlMs, startedAt, side.context);
    this.leases.add(lock, startedAt);
    if (!lock.isHeld) {
      // The reply came back after the lock's validity: it may already be someone else's. Give it back.
      await this.leases.releaseQuietly(lock);
      return { reason: 'expired', retryAfterMs: 0 };
    }
    return lock;
  }

  /** The outcome of an acquisition that began at `startedAt`, recorded in the metrics. */
  private async measured(startedAt: number, attempt: Promise<Lock | Failure>): Promise<Lock | Failure> {
    try {
      const outcome = await attempt;
      this.metrics.acquisition(outcome instanceof Lock ? 'acquired' : outcome.reason, startedAt);
      return outcome;
    } catch (error) {
      if (error instanceof LockNotAcquiredError) this.metrics.acquisition(error.reason, startedAt);
      else if (error instanceof RedisRefusedError) this.metrics.acquisition('refused', startedAt);
      throw error;
    }
  }

  private ttlOf(options: TryAcquireOptions): number {
    return options.ttlMs === undefined ? this.options.defaultTtlMs : checkMs(options.ttlMs, 'ttlMs', 1);
  }
}

import { AsyncLocalStorage } from 'node:async_hooks';
import { performance } from 'node:perf_hooks';
import { type BeforeApplicationShutdown, Inject, Injectable, Logger, type LoggerService, type OnModuleInit } from '@nestjs/common';
import { KeyBuilder } from '../core/keys/key-builder';
import type { ResolvedRedisPatternsOptions } from '../redis-patterns.options';
import { InvalidArgumentError } from '../errors/invalid-argument.error';
import { InvalidOptionsError } from '../errors/invalid-options.error';
import { LockLostError } from './lock-lost.error';
import { type LockFailureReason, LockNotAcquiredError } from './lock-not-acquired.error';
import { RESOLVED_OPTIONS } from '../redis-patterns.constants';
import { AutoExtender } from './auto-extender';
import { backoffDelayMs, LocalWaiters } from './backoff';
import { Lock, type LockContext } from './lock';
import { checkMs, checkResource, type LockKeys, lockKeys } from './lock-keys';
import { LOCK_SETTINGS, type LockSettings } from './lock.options';
import { LockMetrics } from './lock.metrics';
import { LockTracing } from './lock.tracing';
import { LOCK_STORE, type LockStore } from './lock.store';
import { TokenSource } from './token-source';
import { withDeadline } from '../core/time/with-deadline';

/** Options of `tryAcquire`. */
export interface TryAcquireOptions {
  /** Lock TTL in ms (default `lock.defaultTtlMs`). */
  ttlMs?: number;
}

/** Options of `acquire` and `using`. */
export interface AcquireOptions extends TryAcquireOptions {
  /** How long to wait for a held lock, in ms (default 0: one attempt). */
  waitMs?: number;
}

/** The work of `using()`: `signal` aborts (reason: a LockLostError) as soon as the lock is known to be lost. */
export type LockedWork<T> = (signal: AbortSignal, lock: Lock) => Promise<T> | T;

type Failure = { readonly reason: LockFailureReason; readonly retryAfterMs: number };

/** The innermost lock held by the running `using()` work or `@WithLock` method, per async context. */
const heldContext = new AsyncLocalStorage<{ readonly lock: Lock; readonly signal: AbortSignal }>();

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
  private readonly held = new Set<Lock>();
  private readonly running = new Map<Promise<unknown>, { lock: Lock; abort: (reason: LockLostError) => void }>();
  private readonly waiters = new LocalWaiters();
  private readonly context: LockContext;
  private closing = false;
  private readonly metrics = new LockMetrics();
  private readonly tracing = new LockTracing();
  /** When each held lock was acquired (`performance.now()`), for the hold-duration metric. */
  private readonly acquiredAt = new WeakMap<Lock, number>();

  constructor(
    @Inject(RESOLVED_OPTIONS) private readonly moduleOptions: ResolvedRedisPatternsOptions,
    private readonly keys: KeyBuilder,
    @Inject(LOCK_SETTINGS) private readonly options: LockSettings,
    @Inject(LOCK_STORE) private readonly store: LockStore,
  ) {
    this.logger = moduleOptions.logger ?? new Logger('RedisPatterns:Lock');
    const driftFactor = this.options.driftFactor;
    this.context = {
      store: this.store,
      driftMs: (ttlMs) => Math.ceil(ttlMs * driftFactor) + 2,
      forget: (lock) => {
        this.held.delete(lock);
        this.waiters.wakeOne(lock.keys.lock);
        const acquiredAt = this.acquiredAt.get(lock);
        if (acquiredAt !== undefined) this.metrics.released(acquiredAt);
      },
      extended: () => this.metrics.extended(),
    };
  }

  /** Checks what the section validator cannot see: the WAIT deadline must fit in the command deadline. */
  onModuleInit(): void {
    const { waitReplicas, waitTimeoutMs } = this.options;
    if (waitReplicas > 0 && waitTimeoutMs >= this.moduleOptions.commandTimeoutMs) {
      throw new InvalidOptionsError(
        'lock.waitTimeoutMs',
        `an integer below commandTimeoutMs (${this.moduleOptions.commandTimeoutMs}) (ms)`,
        String(waitTimeoutMs),
      );
    }
  }

  /**
   * One attempt (one round trip): the lock, or null when another holder has it. Rejects with
   * {@link LockNotAcquiredError} when Redis does not answer within the command timeout (reason `unavailable`) or
   * too few replicas acknowledged the lock (`replication`).
   */
  async tryAcquire(resource: string, options: TryAcquireOptions = {}): Promise<Lock | null> {
    checkResource(resource);
    const startedAt = performance.now();
    const outcome = await this.measured(startedAt, this.attempt(resource, lockKeys(this.keys, resource), this.ttlOf(options)));
    if (outcome instanceof Lock) return outcome;
    if (outcome.reason === 'replication') throw new LockNotAcquiredError(resource, outcome.reason, outcome.retryAfterMs);
    return null;
  }

  /**
   * Acquires the lock, waiting up to `waitMs` with exponential backoff and jitter (never longer than the holder's
   * remaining TTL; a release by this process wakes a local waiter at once). Rejects with
   * {@link LockNotAcquiredError} when the wait ends or Redis is unavailable. Never returns an expired lock.
   */
  async acquire(resource: string, options: AcquireOptions = {}): Promise<Lock> {
    checkResource(resource);
    const ttlMs = this.ttlOf(options);
    const waitMs = options.waitMs === undefined ? 0 : checkMs(options.waitMs, 'waitMs', 0);
    const startedAt = performance.now();
    return this.measured(startedAt, this.acquireWithin(resource, ttlMs, startedAt + waitMs)) as Promise<Lock>;
  }

  private async acquireWithin(resource: string, ttlMs: number, deadline: number): Promise<Lock> {
    // The keys are built (and the resource escaped) once per call, not once per attempt.
    const keys = lockKeys(this.keys, resource);
    for (let attempt = 0; ; attempt++) {
      const outcome = await this.attempt(resource, keys, ttlMs);
      if (outcome instanceof Lock) return outcome;
      const left = deadline - performance.now();
      if (left <= 0) throw new LockNotAcquiredError(resource, outcome.reason, outcome.retryAfterMs);
      const holderLeft = outcome.retryAfterMs > 0 ? outcome.retryAfterMs + 1 : Number.POSITIVE_INFINITY;
      await this.waiters.sleep(
        keys.lock,
        Math.min(backoffDelayMs(attempt, this.options.retryDelayMs, this.options.maxRetryDelayMs), left, holderLeft),
      );
    }
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
    const controller = new AbortController();
    const span = this.tracing.live ? this.tracing.startHold(method) : undefined;
    const intervalMs = Math.max(1, Math.floor(lock.ttlMs * this.options.autoExtendRatio));
    const lost = (reason: LockLostError): void => {
      if (!controller.signal.aborted) {
        this.metrics.lost();
        if (span) this.tracing.lost(span, reason);
      }
      controller.abort(reason);
    };
    const extender = new AutoExtender(lock, lock.ttlMs, intervalMs, lost, this.logger);
    const held = async (): Promise<T> => {
      extender.start();
      try {
        return await heldContext.run({ lock, signal: controller.signal }, () => work(controller.signal, lock));
      } finally {
        extender.stop();
        await this.releaseQuietly(lock);
      }
    };
    const run = span ? this.tracing.run(span, held) : held();
    const entry = { lock, abort: (reason: LockLostError) => controller.abort(reason) };
    this.running.set(run, entry);
    void run.then(
      () => this.running.delete(run),
      () => this.running.delete(run),
    );
    return run;
  }

  /**
   * The lock held by the `using()` work or `@WithLock` method currently running (the innermost one when nested),
   * e.g. to pass its `fencingToken` to a store from inside a decorated method; undefined outside one.
   */
  current(): Lock | undefined {
    return heldContext.getStore()?.lock;
  }

  /** The abort signal of {@link LockService.current}: it aborts with a LockLostError when that lock is lost. */
  currentSignal(): AbortSignal | undefined {
    return heldContext.getStore()?.signal;
  }

  /** Locks this instance holds now (for diagnostics). */
  heldLocks(): readonly Lock[] {
    return [...this.held];
  }

  /**
   * At shutdown: refuse new locks, give running `using()` work up to `shutdownTimeoutMs` to finish, abort the
   * rest, then release every lock still held — before the connections close.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.closing = true;
    this.waiters.wakeAll();
    if (this.running.size > 0) {
      await withDeadline(Promise.allSettled([...this.running.keys()]), this.moduleOptions.shutdownTimeoutMs, () => undefined);
      for (const { lock, abort } of this.running.values()) abort(new LockLostError(lock.resource, 'the application is shutting down'));
    }
    await Promise.allSettled([...this.held].map((lock) => this.releaseQuietly(lock)));
  }

  private async attempt(resource: string, keys: LockKeys, ttlMs: number): Promise<Lock | Failure> {
    if (this.closing) throw new LockNotAcquiredError(resource, 'shutdown', 1000);
    const token = tokens.take();
    const startedAt = performance.now();
    let result;
    try {
      result = await this.store.attempt(keys, token, ttlMs);
    } catch (error) {
      // Fail closed (invariant 6): no answer means no lock, never "probably free".
      throw new LockNotAcquiredError(resource, 'unavailable', 1000, { cause: error });
    }
    if (!result.acquired) return result;
    const lock = new Lock(resource, token, result.fencingToken, keys, ttlMs, startedAt, this.context);
    this.acquiredAt.set(lock, startedAt);
    this.held.add(lock);
    if (!lock.isHeld) {
      // The reply came back after the lock's validity: it may already be someone else's. Give it back.
      await this.releaseQuietly(lock);
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
      throw error;
    }
  }

  private async releaseQuietly(lock: Lock): Promise<void> {
    try {
      await lock.release();
    } catch (error) {
      this.logger.warn?.(`Could not release lock "${lock.resource}" (it expires with its TTL): ${(error as Error).message}`, 'LockService');
    }
  }

  private ttlOf(options: TryAcquireOptions): number {
    return options.ttlMs === undefined ? this.options.defaultTtlMs : checkMs(options.ttlMs, 'ttlMs', 1);
  }
}

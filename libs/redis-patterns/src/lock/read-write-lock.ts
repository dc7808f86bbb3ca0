import type { AcquireOptions, TryAcquireOptions } from '../lease/acquire-options';
import type { LeaseContext } from '../lease/lease';
import { checkMs } from '../lease/lease-arguments';
import type { LeaseKeys } from '../lease/lease-keys';
import type { Lock, LockedWork } from './lock';
import type { ReadWriteKeys } from './lock-keys';
import type { LeaseSide } from './lock.store';
import type { ReadWriteStore, WaitingWriter } from './read-write-lock.store';
import { InvalidArgumentError } from '../errors/invalid-argument.error';

/**
 * What a ReadWriteLock needs from the LockService that made it.
 * @internal
 */
export interface ReadWriteHost {
  readonly store: ReadWriteStore;
  readonly readContext: LeaseContext;
  readonly writeContext: LeaseContext;
  /** How long a waiting writer's mark lives without a new attempt, in ms. */
  readonly waitMarkTtlMs: number;
  waiterId(): string;
  tryAcquire(resource: string, keys: LeaseKeys, options: TryAcquireOptions, side: LeaseSide): Promise<Lock | null>;
  acquire(resource: string, keys: LeaseKeys, options: AcquireOptions, side: LeaseSide): Promise<Lock>;
  run<T>(lease: Lock, work: LockedWork<T>): Promise<T>;
}

/**
 * A read-write lock on one resource, from `LockService.readWrite(resource)`: many readers at once, or one writer.
 * Leases are `Lock`s — an owner token, a TTL, a fencing token from the resource's counter (the mutex's), `extend()`,
 * `release()` — and `read()` / `write()` run work the way `LockService.using()` does: auto-extended, the signal
 * aborted when the lease is lost, released when the work settles.
 *
 * Writer preference: a writer that waits (`waitMs` > 0) marks itself as waiting at each attempt; while a mark lives,
 * new readers are refused (readers already in finish). So a writer gets the lock once the readers that held it when
 * it arrived have left, however many readers keep arriving. The mark lives `2 × lock.maxRetryDelayMs +
 * commandTimeoutMs` after the writer's last attempt, and is taken down when the writer gets the lock or gives up.
 * Continuous writes can starve readers; their `waitMs` bounds how long they wait.
 *
 * @example
 * const catalog = locks.readWrite('catalog');
 * const items = await catalog.read(() => db.items(), { waitMs: 1_000 });
 * await catalog.write((signal, lease) => db.reindex({ fencingToken: lease.fencingToken, signal }), { waitMs: 5_000 });
 */
export class ReadWriteLock {
  private readonly readSide: LeaseSide;
  private readonly readLeaseKeys: LeaseKeys;
  private readonly writeLeaseKeys: LeaseKeys;

  /** @internal Created by LockService.readWrite. */
  constructor(
    /** The resource this lock guards, as given to `LockService.readWrite`; its leases carry it as `resource`. */
    readonly resource: string,
    private readonly keys: ReadWriteKeys,
    private readonly host: ReadWriteHost,
  ) {
    this.readLeaseKeys = { lease: keys.readers, fence: keys.fence };
    this.writeLeaseKeys = { lease: keys.writer, fence: keys.fence };
    this.readSide = this.side(host.readContext, (token, ttlMs) => host.store.acquireRead(keys, token, ttlMs));
  }

  /**
   * Runs `work` under a read lease, with other readers: waits up to `waitMs` while a writer holds the lock or waits
   * for it. Rejects with LockNotAcquiredError when the wait ends (`contention`) or Redis is unavailable.
   */
  async read<T>(work: (signal: AbortSignal, lock: Lock) => Promise<T> | T, options: AcquireOptions = {}): Promise<T> {
    checkWork(work);
    const lease = await this.host.acquire(this.resource, this.readLeaseKeys, options, this.readSide);
    return this.host.run(lease, work);
  }

  /**
   * Runs `work` under the write lease, alone: waits up to `waitMs` for readers and writers to leave, keeping new
   * readers out meanwhile. Rejects with LockNotAcquiredError when the wait ends (`contention`) or Redis is unavailable.
   */
  async write<T>(work: (signal: AbortSignal, lock: Lock) => Promise<T> | T, options: AcquireOptions = {}): Promise<T> {
    checkWork(work);
    const waitMs = options.waitMs === undefined ? 0 : checkMs(options.waitMs, 'waitMs', 0);
    const waiting: WaitingWriter | undefined = waitMs > 0 ? { id: this.host.waiterId(), markTtlMs: this.host.waitMarkTtlMs } : undefined;
    let lease: Lock;
    try {
      lease = await this.host.acquire(this.resource, this.writeLeaseKeys, options, this.writeSide(waiting));
    } catch (error) {
      // It gave up (deadline, Redis, shutdown): take its mark down, so readers need not wait for it to expire.
      if (waiting) void this.host.store.withdraw(this.keys, waiting.id).catch(() => undefined);
      throw error;
    }
    return this.host.run(lease, work);
  }

  /** One attempt at a read lease (one round trip): the lease, or null while a writer holds or waits. Release it yourself. */
  async tryRead(options: TryAcquireOptions = {}): Promise<Lock | null> {
    return this.host.tryAcquire(this.resource, this.readLeaseKeys, options, this.readSide);
  }

  /** One attempt at the write lease (one round trip): the lease, or null while held. It marks no wait. Release it yourself. */
  async tryWrite(options: TryAcquireOptions = {}): Promise<Lock | null> {
    return this.host.tryAcquire(this.resource, this.writeLeaseKeys, options, this.writeSide(undefined));
  }

  private writeSide(waiting: WaitingWriter | undefined): LeaseSide {
    return this.side(this.host.writeContext, (token, ttlMs) => this.host.store.acquireWrite(this.keys, token, ttlMs, waiting));
  }

  private side(context: LeaseContext, attempt: (token: string, ttlMs: number) => ReturnType<LeaseSide['attempt']>): LeaseSide {
    // Every lease of the resource, read or write, wakes the local waiters of both on release: they wait on the fence key.
    return { context, attempt: (_keys, token, ttlMs) => attempt(token, ttlMs), waitKey: (keys) => keys.fence };
  }
}

function checkWork(work: unknown): void {
  if (typeof work !== 'function') throw new InvalidArgumentError('work', 'expected a function (signal, lease) => result');
}

import type { MemoryKeyspace } from '../../core/memory/memory-keyspace';
import type { AttemptResult } from '../../lease/attempt-result';
import type { LeaseKeys } from '../../lease/lease-keys';
import { nextMemoryFence } from '../../lease/memory/memory-fence';
import { MemorySharedLeases } from '../../lease/memory/memory-shared-leases';
import type { SemaphoreStore } from '../semaphore.store';

/**
 * Semaphores of the module's memory mode (`connection: 'memory://'`), with the semantics of ACQUIRE_PERMIT_SCRIPT
 * under the same keys: expired holders pruned at each acquisition, owner-checked extension and release, one fencing
 * counter per semaphore. Permits are counted within this process only.
 */
export class MemorySemaphoreStore extends MemorySharedLeases implements SemaphoreStore {
  constructor(
    keyspace: MemoryKeyspace,
    private readonly fenceTtlMs: number,
  ) {
    super(keyspace);
  }

  attempt(keys: LeaseKeys, token: string, ttlMs: number, permits: number): Promise<AttemptResult> {
    const holders = this.live(keys.lease);
    if (holders.size >= permits) {
      const retryAfterMs = Math.max(0, Math.ceil(Math.min(...holders.values()) - this.keyspace.now()));
      return Promise.resolve({ acquired: false, reason: 'contention', retryAfterMs });
    }
    this.admit(keys.lease, token, ttlMs);
    return Promise.resolve({ acquired: true, fencingToken: nextMemoryFence(this.keyspace, keys.fence, this.fenceTtlMs) });
  }
}

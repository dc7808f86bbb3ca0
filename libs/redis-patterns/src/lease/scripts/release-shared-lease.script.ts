import { defineCommandScript } from '../../core/scripts/redis-script';

/**
 * Gives back one shared lease (a read lease, a semaphore permit, a writer's waiting mark): ZREM of the owner's member.
 *
 * KEYS[1] the sorted set of leases (owner token → expiry in Redis ms)
 * ARGV[1] owner token
 * Returns 1 when the member was there, expired or not (Lease.release judges expiry by the lease's own validity), 0
 * when it was gone. Removing the last member deletes the key.
 *
 * A release sent alone is the ZREM itself, with no script for the server to run; releases waiting behind outstanding
 * replies share one EVALSHA of the batch form (see RedisScript).
 */
export const RELEASE_SHARED_LEASE_SCRIPT = defineCommandScript<number>('shared_lease_release', 'zrem', { keys: 1, args: 1 });

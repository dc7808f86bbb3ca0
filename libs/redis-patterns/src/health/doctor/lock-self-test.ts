import { randomBytes } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import { COMPARE_AND_DELETE_LUA } from '../../core/scripts/lua/compare-and-delete.lua';
import { RedisExecutor } from '../../core/scripts/redis-executor';
import { defineScript } from '../../core/scripts/redis-script';
import type { DoctorCheck } from './doctor.types';

/** Compare-and-delete: the release of a lock (KEYS[1] the lock, ARGV[1] the holder's token; returns 1 if released). */
const RELEASE = defineScript<number>('doctor_lock_release', COMPARE_AND_DELETE_LUA, { keys: 1 });

/** What the SET NX PX procedure of the reference observed. */
export interface LockProbe {
  first: string | null;
  second: string | null;
  pttl: number;
  released: number;
  ttlMs: number;
}

/** The verdict on a probe: `null` when the lock behaved, else why not. */
export type LockJudge = (probe: LockProbe) => string | null;

/** SET NX PX twice with different tokens, PTTL, then compare-and-delete with the first token. */
export async function probeLock(client: Redis | Cluster, key: string, ttlMs: number, nx: boolean): Promise<LockProbe> {
  const set = (token: string) => (nx ? client.set(key, token, 'PX', ttlMs, 'NX') : client.set(key, token, 'PX', ttlMs));
  try {
    const first = await set('tok-1');
    const second = await set('tok-2');
    const pttl = await client.pttl(key);
    const released = await RedisExecutor.of(client).run(RELEASE, [key], ['tok-1']);
    return { first, second, pttl, released, ttlMs };
  } finally {
    await client.del(key);
  }
}

/** Pass condition of the reference: first SET OK, second refused (nil), 0 < PTTL ≤ TTL, release returns 1. */
export const judgeLockProbe: LockJudge = (probe) => {
  if (probe.first !== 'OK') return `the first SET NX returned ${String(probe.first)}, not OK`;
  if (probe.second !== null) return `the second SET NX returned ${probe.second}: NX is not applied and the lock grants concurrent holders`;
  if (!(probe.pttl > 0 && probe.pttl <= probe.ttlMs)) return `PTTL is ${probe.pttl}, not in (0, ${probe.ttlMs}]: the expiry is not armed`;
  if (probe.released !== 1) return `the compare-and-delete release returned ${probe.released}, not 1`;
  return null;
};

/**
 * The lock contention self-test and its negative control. The control runs the same procedure without NX, where
 * the second SET must succeed: if the judge still passes it, the check cannot fail and proves nothing.
 */
export async function lockSelfTest(
  client: Redis | Cluster,
  keyOf: (suffix: string) => string,
  ttlMs: number,
  judge: LockJudge = judgeLockProbe,
): Promise<DoctorCheck[]> {
  const id = randomBytes(6).toString('hex');
  const probe = await probeLock(client, keyOf(`selftest-${id}`), ttlMs, true);
  const verdict = judge(probe);
  const contention: DoctorCheck = verdict
    ? { name: 'lock-contention', status: 'fail', reason: verdict }
    : { name: 'lock-contention', status: 'pass', reason: `first SET NX OK, second refused, PTTL ${probe.pttl} ≤ ${ttlMs} ms, released` };
  const control = await probeLock(client, keyOf(`control-${id}`), ttlMs, false);
  const controlVerdict = judge(control);
  const negative: DoctorCheck = controlVerdict
    ? {
        name: 'lock-negative-control',
        status: 'pass',
        reason: `without NX the second SET returned ${String(control.second)} and the check failed, as it must (${controlVerdict.split(':')[0]})`,
      }
    : {
        name: 'lock-negative-control',
        status: 'fail',
        reason: 'without NX the lock check still passed: it cannot tell a held lock from a free one, so its pass proves nothing',
      };
  return [contention, negative];
}

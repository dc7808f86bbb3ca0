import type { Redis } from 'ioredis';
import { endpointOf, formatBytes, plural } from './doctor-support';
import type { DoctorCheck } from './doctor.types';

/** A master holding more than this many times the keys, memory or slots of another is out of balance. */
export const IMBALANCE_RATIO = 2;
/** Below this many keys on the fullest master, a key imbalance is not worth a warning. */
export const IMBALANCE_MIN_KEYS = 10_000;
/** Below this `used_memory` on the fullest master, a memory imbalance is not worth a warning: 100 MB. */
export const IMBALANCE_MIN_BYTES = 100 * 1024 * 1024;

/** What one cluster master holds. */
export interface MasterLoad {
  /** `host:port`. */
  endpoint: string;
  /** Hash slots it serves (CLUSTER SLOTS); undefined when it could not be matched. */
  slots?: number;
  /** DBSIZE. */
  keys: number;
  /** `used_memory` in bytes. */
  usedMemory: number;
}

function ratio(values: number[]): number {
  const max = Math.max(...values);
  const min = Math.min(...values);
  return min === 0 ? (max === 0 ? 1 : Infinity) : max / min;
}

/**
 * Judges slots, keys and memory across the masters: warns when the fullest holds more than `IMBALANCE_RATIO` times
 * the emptiest, for keys and memory only past a minimum size (so that an empty or small cluster stays quiet).
 */
export function judgeClusterBalance(masters: readonly MasterLoad[]): DoctorCheck {
  const name = 'cluster-balance';
  const evidence = masters.map(
    (m) =>
      `${m.endpoint}: ${m.slots === undefined ? '? slots' : plural(m.slots, 'slot')}, ${plural(m.keys, 'key')}, ${formatBytes(m.usedMemory)}`,
  );
  if (masters.length < 2) return { name, status: 'pass', reason: `${plural(masters.length, 'master')}: nothing to balance`, evidence };
  const findings: string[] = [];
  const slots = masters.map((m) => m.slots).filter((n): n is number => n !== undefined);
  if (slots.length === masters.length && ratio(slots) > IMBALANCE_RATIO)
    findings.push(`slots ${Math.min(...slots)} to ${Math.max(...slots)}`);
  const keys = masters.map((m) => m.keys);
  if (Math.max(...keys) >= IMBALANCE_MIN_KEYS && ratio(keys) > IMBALANCE_RATIO)
    findings.push(`keys ${Math.min(...keys)} to ${Math.max(...keys)}`);
  const memory = masters.map((m) => m.usedMemory);
  if (Math.max(...memory) >= IMBALANCE_MIN_BYTES && ratio(memory) > IMBALANCE_RATIO)
    findings.push(`used_memory ${formatBytes(Math.min(...memory))} to ${formatBytes(Math.max(...memory))}`);
  if (findings.length === 0) {
    return {
      name,
      status: 'pass',
      reason: `${plural(masters.length, 'master')} within ${IMBALANCE_RATIO}× of each other in slots, and in keys and memory where they hold ${IMBALANCE_MIN_KEYS} keys or ${formatBytes(IMBALANCE_MIN_BYTES)}`,
      evidence,
    };
  }
  return {
    name,
    status: 'warn',
    reason: `masters out of balance (more than ${IMBALANCE_RATIO}× apart): ${findings.join('; ')}: the fullest master runs out of memory and CPU first, whatever the others have left`,
    evidence,
    fix: 'Keys pile up on one master when one hash tag ({…} in the key) groups too many of them: make tags finer (per user or order, not per tenant), and split big keys (see big-keys); move slots with redis-cli --cluster rebalance when the slots themselves are uneven.',
  };
}

/** Slots served by each master, by `host:port`, from CLUSTER SLOTS (`[start, end, [host, port, id], …replicas]`). */
export function slotsPerMaster(reply: unknown): Map<string, number> {
  const slots = new Map<string, number>();
  if (!Array.isArray(reply)) return slots;
  for (const range of reply) {
    if (!Array.isArray(range) || !Array.isArray(range[2])) continue;
    const endpoint = `${String(range[2][0])}:${String(range[2][1])}`;
    slots.set(endpoint, (slots.get(endpoint) ?? 0) + Number(range[1]) - Number(range[0]) + 1);
  }
  return slots;
}

/** Measures every master: CLUSTER SLOTS (once), DBSIZE and the `used_memory` of its INFO. */
export async function measureMasters(masters: readonly Redis[], infos: ReadonlyArray<Record<string, string>>): Promise<MasterLoad[]> {
  const slots = slotsPerMaster(await masters[0].call('CLUSTER', 'SLOTS'));
  const sizes = await Promise.all(masters.map((node) => node.dbsize()));
  return masters.map((node, i) => ({
    endpoint: endpointOf(node),
    slots: slots.get(endpointOf(node)),
    keys: sizes[i],
    usedMemory: Number(infos[i].used_memory ?? 0),
  }));
}

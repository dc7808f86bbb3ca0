import { forEachSlice, pipelineReplies, plural, type KeyspaceSample } from './doctor-support';
import type { DoctorCheck } from './doctor.types';

/**
 * OBJECT FREQ at or above which a key is hot. The LFU counter is logarithmic (with the default `lfu-log-factor 10`
 * about 45 000 recent accesses reach 100; 1 000 000 saturate it at 255) and decays by one per idle minute
 * (`lfu-decay-time 1`), so 100 means a key read or written tens of thousands of times in the last minutes.
 */
export const HOT_KEY_FREQ = 100;

/** The access frequency of one sampled key. */
export interface KeyFrequency {
  key: string;
  /** OBJECT FREQ: the key's logarithmic LFU counter, 0 to 255. */
  freq: number;
  /** The master holding it, on a cluster. */
  node?: string;
}

/** Whether a `maxmemory-policy` keeps the LFU counters OBJECT FREQ reads. */
export function isLfuPolicy(policy: string): boolean {
  return policy.endsWith('-lfu');
}

/**
 * Judges the sampled keys' access frequencies under an LFU policy (warns when the hottest reaches `HOT_KEY_FREQ`);
 * under any other policy there are none to read, and the finding says how to get them.
 */
export function judgeHotKeys(
  policy: string,
  frequencies: readonly KeyFrequency[],
  sample: Pick<KeyspaceSample, 'scanned' | 'complete' | 'limit'>,
  top: number,
): DoctorCheck {
  const name = 'hot-keys';
  if (!isLfuPolicy(policy)) {
    return {
      name,
      status: 'pass',
      reason: `not measured: maxmemory-policy ${policy} keeps no access frequencies; to find hot keys switch to volatile-lfu (or allkeys-lfu on a cache-only instance) and run the doctor or redis-cli --hotkeys again`,
    };
  }
  const scope = `${plural(sample.scanned, 'key')} sampled${sample.complete ? '' : ` (sample limit ${sample.limit} reached)`}`;
  if (frequencies.length === 0) return { name, status: 'pass', reason: `${policy}: ${scope}, none to judge` };
  const ranked = [...frequencies].sort((a, b) => b.freq - a.freq);
  const hot = ranked.filter((entry) => entry.freq >= HOT_KEY_FREQ);
  const evidence = ranked
    .slice(0, Math.max(top, Math.min(hot.length, 10)))
    .map((entry) => `${entry.key} (OBJECT FREQ ${entry.freq}${entry.node ? ` on ${entry.node}` : ''})`);
  if (hot.length === 0) {
    return {
      name,
      status: 'pass',
      reason: `${policy}: ${scope}, the hottest at OBJECT FREQ ${ranked[0].freq} (hot from ${HOT_KEY_FREQ})`,
      evidence,
    };
  }
  return {
    name,
    status: 'warn',
    reason: `${policy}: ${hot.length} of ${scope} at OBJECT FREQ ${HOT_KEY_FREQ} or more: every access to a hot key lands on one server (one shard on a cluster), whatever the number of nodes`,
    evidence,
    fix: "Serve a hot read from process memory (the cache's near cache, nearCache: true), read it from replicas, or spread a hot counter or write over several keys (key:{0} … key:{7}) and combine them on read.",
  };
}

/** OBJECT FREQ of every sampled key, in pipelines of `batch` keys per master. A key gone in between is left out. */
export async function measureFrequencies(sample: KeyspaceSample, batch = 1000): Promise<KeyFrequency[]> {
  const frequencies: KeyFrequency[] = [];
  await forEachSlice(sample, batch, async (server, slice, node) => {
    const replies = await pipelineReplies(
      server,
      slice.map((key): [string, string, string] => ['OBJECT', 'FREQ', key]),
    );
    slice.forEach((key, i) => {
      const freq = replies[i];
      if (typeof freq === 'number') frequencies.push({ key, freq, node });
    });
  });
  return frequencies;
}

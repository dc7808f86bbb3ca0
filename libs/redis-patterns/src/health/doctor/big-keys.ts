import { forEachSlice, formatBytes, pipelineReplies, plural, type KeyspaceSample } from './doctor-support';
import type { DoctorCheck } from './doctor.types';

/** Default of `bigKeyBytes`: 10 MB. */
export const BIG_KEY_BYTES = 10 * 1024 * 1024;
/** Default of `bigKeyElements`. */
export const BIG_KEY_ELEMENTS = 1_000_000;

/** What the big-key check measured of one key. */
export interface KeySize {
  key: string;
  /** TYPE: `string`, `hash`, `list`, `set`, `zset`, `stream`, or a module's type. */
  type: string;
  /** MEMORY USAGE … SAMPLES 5, in bytes (an estimate for aggregates). */
  bytes: number;
  /** HLEN, LLEN, SCARD, ZCARD or XLEN; STRLEN for a string (its length in bytes); undefined for other types. */
  elements?: number;
  /** The master holding it, on a cluster. */
  node?: string;
}

/** When a key is big, and how many keys to list. */
export interface BigKeyLimits {
  bytes: number;
  elements: number;
  top: number;
}

/** The command that counts the elements of a key of each type (a string's "elements" are its bytes). */
const COUNT_COMMAND: Record<string, string> = { string: 'STRLEN', hash: 'HLEN', list: 'LLEN', set: 'SCARD', zset: 'ZCARD', stream: 'XLEN' };

/** Whether a key is over either limit (a string is judged on its memory only: its "elements" are bytes). */
export function isBigKey(size: KeySize, limits: Pick<BigKeyLimits, 'bytes' | 'elements'>): boolean {
  return size.bytes > limits.bytes || (size.type !== 'string' && (size.elements ?? 0) > limits.elements);
}

/** One evidence line: `key (hash, 1200000 elements, 61.2 MB)`. */
export function describeKeySize(size: KeySize): string {
  const count =
    size.elements === undefined ? '' : size.type === 'string' ? `${size.elements} bytes long, ` : `${plural(size.elements, 'element')}, `;
  return `${size.key} (${size.type}, ${count}${formatBytes(size.bytes)}${size.node ? ` on ${size.node}` : ''})`;
}

/** Judges the measured keys: warns when any is over a limit, and lists the largest `top` as evidence. */
export function judgeBigKeys(
  sizes: readonly KeySize[],
  sample: Pick<KeyspaceSample, 'scanned' | 'complete' | 'limit'>,
  limits: BigKeyLimits,
): DoctorCheck {
  const name = 'big-keys';
  const scope = `${plural(sample.scanned, 'key')} sampled with SCAN${sample.complete ? ' (the whole keyspace)' : ` (sample limit ${sample.limit} reached)`}`;
  if (sizes.length === 0) return { name, status: 'pass', reason: `${scope}: no key to measure` };
  const ranked = [...sizes].sort((a, b) => b.bytes - a.bytes || (b.elements ?? 0) - (a.elements ?? 0));
  const big = ranked.filter((size) => isBigKey(size, limits));
  const shown = [...big, ...ranked.filter((size) => !isBigKey(size, limits))].slice(0, Math.max(limits.top, Math.min(big.length, 10)));
  const evidence = shown.map(describeKeySize);
  const bounds = `${formatBytes(limits.bytes)} or ${limits.elements} elements`;
  if (big.length === 0) {
    return { name, status: 'pass', reason: `${scope}: none above ${bounds}; the largest:`, evidence };
  }
  return {
    name,
    status: 'warn',
    reason: `${big.length} of ${scope} above ${bounds}: a command on a big key (DEL, HGETALL, SMEMBERS, a slot migration, an eviction) blocks the server for every client`,
    evidence,
    fix: 'Split a big value over several keys (e.g. by a hash of the field: key:0 … key:15), cap what grows (CappedList maxLength, Leaderboard maxLength, XADD MAXLEN ~ on streams), give it a TTL, and remove a big key with UNLINK, not DEL.',
  };
}

/**
 * MEMORY USAGE (SAMPLES 5) and TYPE of every sampled key, then the element count of each (STRLEN, HLEN, LLEN, SCARD,
 * ZCARD, XLEN), in pipelines of `batch` keys per master. A key that disappears in between is left out.
 */
export async function measureKeys(sample: KeyspaceSample, batch = 500): Promise<KeySize[]> {
  const sizes: KeySize[] = [];
  await forEachSlice(sample, batch, async (server, slice, node) => {
    const replies = await pipelineReplies(
      server,
      slice.flatMap((key): Array<[string, ...string[]]> => [
        ['MEMORY', 'USAGE', key, 'SAMPLES', '5'],
        ['TYPE', key],
      ]),
    );
    const found = slice
      .map((key, i) => ({ key, bytes: replies[2 * i] as number | null | undefined, type: String(replies[2 * i + 1]) }))
      .filter((entry): entry is { key: string; bytes: number; type: string } => typeof entry.bytes === 'number' && entry.type !== 'none');
    const counted = found.filter((entry) => COUNT_COMMAND[entry.type]);
    const counts = await pipelineReplies(
      server,
      counted.map((entry): [string, string] => [COUNT_COMMAND[entry.type], entry.key]),
    );
    const countOf = new Map(counted.map((entry, i) => [entry.key, counts[i]]));
    for (const entry of found) {
      const count = countOf.get(entry.key);
      sizes.push({ ...entry, elements: typeof count === 'number' ? count : undefined, node });
    }
  });
  return sizes;
}

/** One stream entry as read from Redis; `fields` is null for an entry deleted or trimmed while pending. */
export interface RawEntry {
  readonly id: string;
  readonly fields: Record<string, string> | null;
}

type EntryReply = [string, string[] | null];

/**
 * Entries of an XREAD/XREADGROUP reply for one stream. RESP2 replies `[[key, entries]]`; a RESP3 map reply (the
 * ioredis 6 default protocol) arrives flattened as `[key, entries]`; no entries is `null`.
 */
export function entriesOfReadReply(reply: unknown): RawEntry[] {
  if (!Array.isArray(reply) || reply.length === 0) return [];
  const entries = typeof reply[0] === 'string' ? reply[1] : (reply[0] as unknown[])[1];
  return Array.isArray(entries) ? (entries as EntryReply[]).map(toEntry) : [];
}

/**
 * XAUTOCLAIM … JUSTID: `[nextCursor, ids, deletedIds]` (Redis 7 drops deleted entries from the PEL itself and lists
 * them apart; were one answered among the ids, as by Redis 6.2, reading it back gives a null entry, acknowledged).
 */
export function parseAutoClaimIdsReply(reply: unknown): { cursor: string; ids: string[]; deleted: string[] } {
  const [cursor, ids, deleted] = reply as [string, Array<string | null> | null, string[] | undefined];
  return { cursor, ids: (ids ?? []).filter((id): id is string => typeof id === 'string'), deleted: deleted ?? [] };
}

/** XPENDING (extended form): `[[id, consumer, idleMs, deliveries], …]` → deliveries by id. */
export function deliveriesOfPendingReply(reply: unknown): Map<string, number> {
  const counts = new Map<string, number>();
  for (const row of (reply as Array<[string, string, number, number]>) ?? []) counts.set(row[0], Number(row[3]));
  return counts;
}

function toEntry([id, flat]: EntryReply): RawEntry {
  if (!flat) return { id, fields: null };
  const fields: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i]] = flat[i + 1];
  return { id, fields };
}

/**
 * The greatest possible stream id below `id` (`<ms>-<seq>`, both unsigned 64-bit): XREADGROUP answers ids strictly
 * after the one given, so reading from here starts at `id` itself.
 */
export function idBefore(id: string): string {
  const [ms, seq] = id.split('-').map(BigInt);
  if (seq > 0n) return `${ms}-${seq - 1n}`;
  return ms > 0n ? `${ms - 1n}-18446744073709551615` : '0-0';
}

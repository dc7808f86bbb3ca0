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

/** XAUTOCLAIM: `[nextCursor, entries, deletedIds]` (Redis 7 drops deleted entries from the PEL itself). */
export function parseAutoClaimReply(reply: unknown): { cursor: string; entries: RawEntry[]; deleted: string[] } {
  const [cursor, entries, deleted] = reply as [string, EntryReply[], string[] | undefined];
  return { cursor, entries: (entries ?? []).filter((entry) => entry !== null).map(toEntry), deleted: deleted ?? [] };
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

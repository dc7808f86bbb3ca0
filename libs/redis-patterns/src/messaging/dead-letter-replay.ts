import { parseJsonSafely } from '../core/serialization/parse-json-safely';
import { DEAD_LETTER_FIELDS } from './dead-letter';
import type { RawEntry } from './stream-replies';
import type { StreamsStore } from './streams.store';

/** A dead-letter entry `replayDeadLetters` could not replay: it stays in the dead-letter stream. */
export interface SkippedDeadLetter {
  /** The entry's id in the dead-letter stream (for `XRANGE` / `XDEL` in redis-cli). */
  readonly id: string;
  /** What is wrong with it, e.g. `"fields" is not JSON (…)`. */
  readonly reason: string;
}

/** What one `StreamsService.replayDeadLetters` call did. */
export interface DeadLetterReplay {
  /** Entries re-added to their stream and deleted from the dead-letter stream. */
  readonly replayed: number;
  /**
   * Entries left in the dead-letter stream because their original fields cannot be replayed (written by hand or by
   * another tool), oldest first. They are reported again by every later call until someone deletes them.
   */
  readonly skipped: SkippedDeadLetter[];
}

/** The original fields of a dead-letter entry, as `StreamsService.add` takes them. */
export type OriginalFields = Record<string, string | number>;

// Pages of at least this many entries: a long run of malformed entries is crossed in a few round trips.
const MIN_PAGE = 100;
const MAX_PAGE = 1000;

/**
 * Moves up to `count` replayable entries of the dead-letter stream back to their stream, oldest first: each is
 * re-added (as `toFields` flattens it) before it is deleted, so a crash can duplicate an entry, never lose it. An
 * entry whose original fields are malformed is skipped and reported, and does not count towards `count`: the entries
 * behind it are replayed all the same, and it stays for a human to look at.
 */
export async function replayDeadLetters(
  store: StreamsStore,
  keys: { source: string; deadLetter: string },
  options: { count: number; maxLength: number; toFields: (fields: OriginalFields) => string[] },
): Promise<DeadLetterReplay> {
  const pageSize = Math.min(Math.max(options.count, MIN_PAGE), MAX_PAGE);
  const skipped: SkippedDeadLetter[] = [];
  let replayed = 0;
  let after: string | undefined;
  while (replayed < options.count) {
    const page = await store.range(keys.deadLetter, pageSize, after);
    for (const entry of page) {
      if (replayed === options.count) break;
      const original = originalFieldsOf(entry);
      if (typeof original === 'string') {
        skipped.push({ id: entry.id, reason: original });
        continue;
      }
      await store.add(keys.source, options.toFields(original), options.maxLength);
      await store.delete(keys.deadLetter, [entry.id]);
      replayed++;
    }
    if (page.length < pageSize) break;
    after = page[page.length - 1].id;
  }
  return { replayed, skipped };
}

/** The original fields of a dead-letter entry, or why there are none that can be replayed. */
export function originalFieldsOf(entry: RawEntry): OriginalFields | string {
  const json = entry.fields?.[DEAD_LETTER_FIELDS.fields];
  if (json === undefined) return `no "${DEAD_LETTER_FIELDS.fields}" field`;
  let parsed: unknown;
  try {
    // Anything with access to the server may have written it: prototype keys are dropped.
    parsed = parseJsonSafely(json);
  } catch (error) {
    return `"${DEAD_LETTER_FIELDS.fields}" is not JSON (${(error as Error).message})`;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return `"${DEAD_LETTER_FIELDS.fields}" is not a JSON object of strings and numbers`;
  }
  const entries = Object.entries(parsed);
  if (entries.length === 0) return `"${DEAD_LETTER_FIELDS.fields}" holds no field`;
  for (const [name, value] of entries) {
    if (typeof value !== 'string' && !(typeof value === 'number' && Number.isFinite(value))) {
      return `field ${JSON.stringify(name)} of "${DEAD_LETTER_FIELDS.fields}" is not a string or a finite number`;
    }
  }
  return parsed as OriginalFields;
}

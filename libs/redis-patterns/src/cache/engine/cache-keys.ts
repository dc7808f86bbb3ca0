import { escapeKeyPart, MAX_KEY_PART_LENGTH } from '../../core/keys/escape-key-part';
import type { KeyBuilder } from '../../core/keys/key-builder';
import { InvalidArgumentError } from '../../errors/invalid-argument.error';

// A shortened key part keeps the first MAX_KEY_PART_LENGTH - 24 characters of its escaped form (24: the `%~` mark
// and a 22-character digest), less up to 2 when the cut falls inside a `%XX` escape: a namespace must fit in what is
// always kept, or a long key under it would not start with it.
const MAX_ESCAPED_NAMESPACE = MAX_KEY_PART_LENGTH - 24 - 2;

/**
 * Key layout of the cache (every part escaped by the KeyBuilder, invariant 8):
 *
 * - `<prefix>:cache:{<key>}`       the entry (header + JSON), TTL = fresh TTL (jittered) + stale window
 * - `<prefix>:cache:{<key>}:lock`  the cross-instance fill lock, TTL = `lockTtlMs`
 * - `<prefix>:cache:{<key>}:inv`   tombstones left by tag invalidations (tag → epoch), TTL = the tag index's TTL
 * - `<prefix>:cache-tag:{<tag>}:idx` a tag's member index (sorted set: entry key → its expiry in server ms), pruned
 *   of expired members as keys register, TTL ≥ its longest member
 * - `<prefix>:cache-tag:{<tag>}:e` a tag's invalidation epoch, TTL ≥ the member index's
 *
 * An entry and its lock and tombstones share a hash tag, as do a tag's index and epoch, so every script touches one
 * slot (invariant 4). A tag's members live in any slot: they are only ever touched one key at a time.
 */
export class CacheKeys {
  constructor(private readonly keys: KeyBuilder) {}

  /** What every entry key starts with (the near cache tracks changes under it). */
  entryPrefix(): string {
    return `${this.keys.key('cache')}:`;
  }

  /** The entry key of a user key (one part) or of a decorator's default key (class.method, encoded arguments). */
  entry(...parts: string[]): string {
    return this.keys.slotGroup('cache', ...parts);
  }

  /**
   * What the entry keys of every user key starting with `namespace` start with: escaping works character by
   * character (each escape a whole `%XX` run), so an escaped prefix is a prefix of the escaped key; a key shortened
   * past MAX_KEY_PART_LENGTH escaped characters keeps at least its first 174 verbatim before `%~<digest>` (see
   * escapeKeyPart), and a namespace must fit in them once escaped.
   */
  entriesStartingWith(namespace: string): string {
    const escaped = escapeKeyPart(namespace, Number.MAX_SAFE_INTEGER);
    if (escaped.length > MAX_ESCAPED_NAMESPACE) {
      throw new InvalidArgumentError('namespace', `expected a prefix of at most ${MAX_ESCAPED_NAMESPACE} characters once escaped`);
    }
    return `${this.keys.key('cache')}:{${escaped}`;
  }

  lock(entry: string): string {
    return this.keys.member(entry, 'lock');
  }

  tombstone(entry: string): string {
    return this.keys.member(entry, 'inv');
  }

  tagIndex(tag: string): string {
    return this.keys.member(this.keys.slotGroup('cache-tag', tag), 'idx');
  }

  tagEpoch(tag: string): string {
    return this.keys.member(this.keys.slotGroup('cache-tag', tag), 'e');
  }
}

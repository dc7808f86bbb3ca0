import { escapeKeyPart, MAX_KEY_PART_LENGTH } from '../../core/keys/escape-key-part';
import { InvalidArgumentError } from '../../errors/invalid-argument.error';

// A long key keeps its first MAX_KEY_PART_LENGTH - 24 escaped characters verbatim: a namespace must fit in them.
const MAX_ESCAPED_NAMESPACE = MAX_KEY_PART_LENGTH - 30;
import type { KeyBuilder } from '../../core/keys/key-builder';

/**
 * Key layout of the cache (every part escaped by the KeyBuilder, invariant 8):
 *
 * - `<prefix>:cache:{<key>}`       the entry (header + JSON), TTL = fresh TTL (jittered) + stale window
 * - `<prefix>:cache:{<key>}:lock`  the cross-instance fill lock, TTL = `lockTtlMs`
 * - `<prefix>:cache:{<key>}:inv`   tombstones left by tag invalidations (tag → epoch), TTL = the tag set's TTL
 * - `<prefix>:cache-tag:{<tag>}:m` a tag's member set (entry keys), TTL ≥ its longest member
 * - `<prefix>:cache-tag:{<tag>}:e` a tag's invalidation epoch, TTL ≥ the member set's
 *
 * An entry and its lock and tombstones share a hash tag, as do a tag's set and epoch, so every script touches one
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
   * character, so an escaped prefix is a prefix of the escaped key (keys past 176 escaped characters keep a readable
   * head, see escapeKeyPart: a namespace is at most 100 characters).
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

  tagMembers(tag: string): string {
    return this.keys.member(this.keys.slotGroup('cache-tag', tag), 'm');
  }

  tagEpoch(tag: string): string {
    return this.keys.member(this.keys.slotGroup('cache-tag', tag), 'e');
  }
}

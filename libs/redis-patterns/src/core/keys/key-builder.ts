import { escapeKeyPart } from './escape-key-part';

/**
 * Builds every key the library writes: `<keyPrefix>:<pattern>:<part>…`, with each part escaped.
 * Keys that one script touches together share a hash tag (see {@link KeyBuilder.slotGroup}), so they live in one
 * cluster slot (invariant 4).
 */
export class KeyBuilder {
  private readonly head: string;

  constructor(readonly prefix: string) {
    this.head = prefix ? `${prefix}:` : '';
  }

  /** A key of `pattern` (a constant such as `cache`) made of user-supplied `parts`, each escaped. */
  key(pattern: string, ...parts: string[]): string {
    let key = this.head + pattern;
    for (const part of parts) key += ':' + escapeKeyPart(part);
    return key;
  }

  /**
   * The hash-tagged root of a group of keys that must share a slot, e.g. a lock and its fencing counter:
   * `slotGroup('lock', 'order:42')` is `rp:lock:{order%3A42}`. Use {@link KeyBuilder.member} to derive the
   * group's keys.
   */
  slotGroup(pattern: string, ...parts: string[]): string {
    const tag = parts.length === 1 ? escapeKeyPart(parts[0]) : parts.map((part) => escapeKeyPart(part)).join(':');
    return `${this.head}${pattern}:{${tag}}`;
  }

  /** A key inside a slot group: `<group>:<suffix>` (suffix is a library constant, not user input). */
  member(group: string, suffix: string): string {
    return `${group}:${suffix}`;
  }

  /** The SCAN/PSUBSCRIBE glob matching every key of a pattern (or all of the library's keys). */
  pattern(pattern?: string): string {
    const head = this.head.replace(/[*?[\]\\]/g, (ch) => `\\${ch}`);
    return pattern ? `${head}${pattern}:*` : `${head}*`;
  }
}

import { escapeKeyPart } from '../core/keys/escape-key-part';
import type { KeyBuilder } from '../core/keys/key-builder';
import { InvalidArgumentError } from '../errors/invalid-argument.error';

/** The key-builder pattern name under which channels live: `<keyPrefix>:pubsub:<channel>`. */
export const PUBSUB_NAMESPACE = 'pubsub';

const GLOB = /[*?[]/;

/** A name with `*`, `?` or `[` is a pattern subscription (PSUBSCRIBE); anything else is a channel. */
export function isChannelPattern(name: string): boolean {
  return GLOB.test(name);
}

/** Rejects what cannot name a channel; `argument` is the parameter name used in the error. */
export function checkChannelName(name: unknown, argument: string): asserts name is string {
  if (typeof name !== 'string' || name.length === 0) {
    throw new InvalidArgumentError(argument, 'expected a non-empty string');
  }
}

/**
 * Maps user-facing channel names to the raw Redis channels and back. A channel is escaped like a key part
 * (invariant 8), so `orders:created` is published on `<prefix>:pubsub:orders%3Acreated` and a user string can
 * never widen a pattern subscription of someone else. A pattern keeps its glob characters (`*`, `?`, `[…]`)
 * and escapes the literal text between them the same way, so `orders:*` becomes `<prefix>:pubsub:orders%3A*`
 * and still matches every escaped `orders:…` channel.
 */
export class ChannelNames {
  private readonly head: string;
  private readonly globHead: string;

  constructor(keys: KeyBuilder) {
    this.head = `${keys.key(PUBSUB_NAMESPACE)}:`;
    // The prefix is literal text inside a glob: its own glob characters must not match anything else.
    this.globHead = this.head.replace(/[*?[\]\\]/g, (ch) => `\\${ch}`);
  }

  /** The raw channel of a (non-pattern) channel name. */
  channel(name: string): string {
    return this.head + escapeKeyPart(name);
  }

  /** The raw PSUBSCRIBE glob of a pattern name. */
  pattern(name: string): string {
    let raw = this.globHead;
    let literal = '';
    const flush = (): void => {
      // No length bound here: a shortened (hashed) run could never match the channels it describes.
      if (literal) raw += escapeKeyPart(literal, Number.MAX_SAFE_INTEGER);
      literal = '';
    };
    for (let i = 0; i < name.length; i++) {
      const ch = name[i];
      if (ch === '*' || ch === '?') {
        flush();
        raw += ch;
      } else if (ch === '[') {
        const end = name.indexOf(']', i + 2);
        if (end === -1) {
          literal += ch;
          continue;
        }
        flush();
        raw += name.slice(i, end + 1);
        i = end;
      } else {
        literal += ch;
      }
    }
    flush();
    return raw;
  }

  /** The user-facing name of a raw channel (the inverse of {@link ChannelNames.channel} for unshortened names). */
  display(raw: string): string {
    const name = raw.startsWith(this.head) ? raw.slice(this.head.length) : raw;
    return name.replace(/%([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  }
}

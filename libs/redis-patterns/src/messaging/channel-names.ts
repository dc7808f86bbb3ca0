import { escapeKeyPart, unescapeKeyPart } from '../core/keys/escape-key-part';
import type { KeyBuilder } from '../core/keys/key-builder';
import { InvalidArgumentError } from '../errors/invalid-argument.error';

/** The key-builder pattern name under which channels live: `<keyPrefix>:pubsub:<channel>`. */
export const PUBSUB_NAMESPACE = 'pubsub';

const GLOB = /[*?[]/;

/**
 * Whether a name declared in code (`@OnRedisMessage`) is a pattern: it has `*`, `?` or `[`. Never applied to a name
 * given at run time, which may come from data: `subscribe()` takes it literally unless told it is a pattern.
 */
export function isDeclaredPattern(name: string): boolean {
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
 * (invariant 8), so `orders:created` is published on `<prefix>:pubsub:orders%3Acreated`, and a name such as `room:*`
 * is the one channel `<prefix>:pubsub:room%3A%2A`: a user string can never widen a subscription. A pattern keeps its
 * glob characters (`*`, `?`, `[…]`) and escapes the literal text between them the same way, so `orders:*` becomes
 * `<prefix>:pubsub:orders%3A*` and matches every escaped `orders:…` channel.
 */
export class ChannelNames {
  private readonly head: string;
  private readonly globHead: string;

  constructor(keys: KeyBuilder) {
    this.head = `${keys.key(PUBSUB_NAMESPACE)}:`;
    // The prefix is literal text inside a glob: its own glob characters must not match anything else.
    this.globHead = this.head.replace(/[*?[\]\\]/g, (ch) => `\\${ch}`);
  }

  /** The raw channel of a channel name, whatever characters it holds. */
  channel(name: string): string {
    return this.head + escapeKeyPart(name);
  }

  /**
   * The raw PSUBSCRIBE glob of a pattern name. Linear in the name's length: a `[` whose class is never closed is
   * literal text, and once no `]` is left, no later `[` looks for one again.
   */
  pattern(name: string): string {
    const parts: string[] = [this.globHead];
    let literalFrom = 0;
    const flush = (to: number): void => {
      // No length bound here: a shortened (hashed) run could never match the channels it describes.
      if (to > literalFrom) parts.push(escapeKeyPart(name.slice(literalFrom, to), Number.MAX_SAFE_INTEGER));
    };
    // Where the search for a closing `]` found none: no `]` from there to the end.
    let noCloseFrom = name.length;
    for (let i = 0; i < name.length; i++) {
      const ch = name[i];
      if (ch === '*' || ch === '?') {
        flush(i);
        parts.push(ch);
        literalFrom = i + 1;
      } else if (ch === '[') {
        const end = i + 2 >= noCloseFrom ? -1 : name.indexOf(']', i + 2);
        if (end === -1) {
          noCloseFrom = Math.min(noCloseFrom, i + 2);
          continue;
        }
        flush(i);
        parts.push(name.slice(i, end + 1));
        i = end;
        literalFrom = end + 1;
      }
    }
    flush(name.length);
    return parts.join('');
  }

  /** The user-facing name of a raw channel (the inverse of {@link ChannelNames.channel} for unshortened names). */
  display(raw: string): string {
    return unescapeKeyPart(raw.startsWith(this.head) ? raw.slice(this.head.length) : raw);
  }
}

const STAR = 0x2a; // *
const QUESTION = 0x3f; // ?
const OPEN = 0x5b; // [
const CLOSE = 0x5d; // ]
const BACKSLASH = 0x5c; // \
const CARET = 0x5e; // ^
const DASH = 0x2d; // -

/** Redis gives up (no match) beyond this depth of `*` recursion, which bounds the work of a hostile pattern. */
const MAX_NESTING = 1000;

/**
 * A PSUBSCRIBE glob, matched as Redis matches it (`stringmatchlen` in util.c), on the UTF-8 bytes of the channel:
 * `*` any run of bytes, `?` exactly one byte (so one byte of a multi-byte character), `[abc]` / `[^abc]` / `[a-z]`
 * (a reversed range is swapped, `\` escapes inside a class, an unclosed class ends with the pattern), `\x` a literal
 * `x`. Case-sensitive.
 */
export class RedisGlob {
  private readonly pattern: Uint8Array;

  constructor(pattern: string) {
    this.pattern = Buffer.from(pattern, 'utf8');
  }

  /** Whether `channel` (text, or its UTF-8 bytes) matches. */
  matches(channel: string | Uint8Array): boolean {
    const subject = typeof channel === 'string' ? Buffer.from(channel, 'utf8') : channel;
    return matchFrom(this.pattern, 0, subject, 0, { giveUp: false }, 0);
  }
}

/**
 * Matches `p` from `pi` against `s` from `si`. `state.giveUp` is Redis' `skipLongerMatches`: once the rest of the
 * pattern after a `*` matched nowhere in the rest of the string, no earlier `*` can help by matching more.
 */
function matchFrom(p: Uint8Array, pi: number, s: Uint8Array, si: number, state: { giveUp: boolean }, nesting: number): boolean {
  if (nesting > MAX_NESTING) return false;
  while (pi < p.length && si < s.length) {
    switch (p[pi]) {
      case STAR: {
        while (p[pi + 1] === STAR) pi++;
        if (pi === p.length - 1) return true;
        for (; si < s.length; si++) {
          if (matchFrom(p, pi + 1, s, si, state, nesting + 1)) return true;
          if (state.giveUp) return false;
        }
        state.giveUp = true;
        return false;
      }
      case QUESTION:
        si++;
        break;
      case OPEN: {
        const end = matchClass(p, pi + 1, s[si]);
        if (end === undefined) return false;
        pi = end;
        si++;
        break;
      }
      default: {
        if (p[pi] === BACKSLASH && pi + 1 < p.length) pi++;
        if (p[pi] !== s[si]) return false;
        si++;
      }
    }
    pi++;
    if (si === s.length) {
      while (p[pi] === STAR) pi++;
      break;
    }
  }
  return pi === p.length && si === s.length;
}

/**
 * Matches one byte against the class that starts at `pi` (just after `[`). Returns the index of the class's last
 * pattern byte (its `]`, or the pattern's last byte when unclosed), or undefined when the byte does not match.
 */
function matchClass(p: Uint8Array, pi: number, byte: number): number | undefined {
  const negate = p[pi] === CARET;
  if (negate) pi++;
  let matched = false;
  for (; ; pi++) {
    if (p[pi] === BACKSLASH && pi + 1 < p.length) {
      pi++;
      if (p[pi] === byte) matched = true;
    } else if (p[pi] === CLOSE) {
      break;
    } else if (pi >= p.length) {
      pi = p.length - 1;
      break;
    } else if (pi + 2 < p.length && p[pi + 1] === DASH) {
      const low = Math.min(p[pi], p[pi + 2]);
      const high = Math.max(p[pi], p[pi + 2]);
      pi += 2;
      if (byte >= low && byte <= high) matched = true;
    } else if (p[pi] === byte) {
      matched = true;
    }
  }
  return matched !== negate ? pi : undefined;
}

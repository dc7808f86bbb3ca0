import { createHash } from 'node:crypto';

/**
 * A Lua script with a fixed number of keys. Each script lives in its own module with a header block listing
 * KEYS, ARGV and the return value; {@link RedisExecutor.run} sends it (EVALSHA, EVAL after a NOSCRIPT).
 */
export interface RedisScript<TResult> {
  /** Short name, used in the command name and in errors. */
  readonly name: string;
  readonly lua: string;
  /** SHA-1 of the Lua text, as EVALSHA expects it. */
  readonly sha: string;
  readonly numberOfKeys: number;
  /** `rp_<name>_<sha1 prefix>`: content-versioned, so two versions of a script never share a name. */
  readonly commandName: string;
  /** Phantom field carrying the result type. */
  readonly __result?: TResult;
}

/** Declares a script; `TResult` is the shape of the reply (ioredis maps Lua tables to arrays). */
export function defineScript<TResult>(name: string, numberOfKeys: number, lua: string): RedisScript<TResult> {
  return { name, lua, numberOfKeys, ...scriptIdentity(name, lua) };
}

/** The SHA-1 of a script's text and its versioned name `rp_<name>_<sha1 prefix>`. */
export function scriptIdentity(name: string, lua: string): { sha: string; commandName: string } {
  const sha = createHash('sha1').update(lua).digest('hex');
  return { sha, commandName: `rp_${name}_${sha.slice(0, 10)}` };
}

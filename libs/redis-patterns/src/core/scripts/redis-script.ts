import { createHash } from 'node:crypto';

/** A script's Lua text and its SHA-1, as EVALSHA expects it. */
export interface ScriptText {
  readonly lua: string;
  readonly sha: string;
}

/** What every call of a script carries, when it is fixed (checked before the call is queued). */
export interface ScriptShape {
  /** Keys per call. */
  readonly keys?: number;
  /** Arguments per call. */
  readonly args?: number;
}

/**
 * The library's one kind of Lua script. It is written as the body of one call (`KEYS`, `ARGV`, ending with
 * `return`) and can be sent two ways by {@link RedisExecutor.run}, which picks per call:
 * - alone, as EVALSHA of {@link single} (the prelude, then the body): what a lone caller pays, no more than a
 *   hand-written script;
 * - with other calls of the same script, as one EVALSHA of its batch form (see `batch-form.ts`), when the connection
 *   already has replies outstanding: the per-command cost is shared.
 * Each script lives in its own module with a header block listing KEYS, ARGV and the reply.
 */
export interface RedisScript<TReply> {
  /** Short name, used in errors and in the versioned {@link commandName}. */
  readonly name: string;
  /** The Lua of one call, without the prelude. */
  readonly body: string;
  /** Definitions the body uses (local functions, constant tables), evaluated once per script run. */
  readonly prelude: string;
  readonly shape: ScriptShape;
  /** The script of one call: the prelude, then the body. */
  readonly single: ScriptText;
  /** SHA-1 of {@link single}'s text. */
  readonly sha: string;
  /** `rp_<name>_<sha1 prefix>`: content-versioned, so two versions of a script never share a name. */
  readonly commandName: string;
  /**
   * For a script that is one command of its keys then its arguments ({@link defineCommandScript}): that command,
   * which a call going alone is sent as (nothing for the server to run but the command); a batch still runs the body.
   */
  readonly command?: string;
  /** Phantom field carrying the reply type. */
  readonly __reply?: TReply;
}

/** How a script is declared: its shape, when fixed, and the definitions its body shares with other calls of a batch. */
export interface ScriptOptions extends ScriptShape {
  readonly prelude?: string;
}

/**
 * Declares a script. `body` is the Lua of one call: it uses `KEYS[i]` and `ARGV[i]` and ends with `return`; it must
 * not keep a reference to KEYS or ARGV (in a batch they are refilled for the next call) nor rely on globals.
 * `TReply` is the shape of the reply (ioredis maps Lua tables to arrays).
 */
export function defineScript<TReply>(name: string, body: string, options: ScriptOptions = {}): RedisScript<TReply> {
  const { prelude = '', keys, args } = options;
  for (const [field, count] of [
    ['keys', keys],
    ['args', args],
  ] as const) {
    if (count !== undefined && !(Number.isInteger(count) && count >= 0)) {
      throw new TypeError(`Script ${name}: ${field} must be a whole number, got ${count}.`);
    }
  }
  const single = scriptText(prelude ? `${prelude}\n${body}` : body);
  return {
    name,
    body,
    prelude,
    shape: { keys, args },
    single,
    sha: single.sha,
    commandName: `rp_${name}_${single.sha.slice(0, 10)}`,
  };
}

/**
 * Declares a script that is one command: `command` of the call's keys, then its arguments (a shared lease's release
 * is `ZREM set token`). A call written at once (few replies outstanding) is that command itself, with no script for
 * the server to look up and run; calls that wait behind outstanding replies share one EVALSHA of the batch form, as
 * every script's do. The body is written from the command, so the two forms cannot differ.
 */
export function defineCommandScript<TReply>(name: string, command: string, shape: { keys: number; args: number }): RedisScript<TReply> {
  const operands = [
    ...Array.from({ length: shape.keys }, (_, i) => `KEYS[${i + 1}]`),
    ...Array.from({ length: shape.args }, (_, i) => `ARGV[${i + 1}]`),
  ];
  const script = defineScript<TReply>(name, `return redis.call('${command.toUpperCase()}', ${operands.join(', ')})`, shape);
  return { ...script, command: command.toLowerCase() };
}

/** A Lua text with its SHA-1. */
export function scriptText(lua: string): ScriptText {
  return { lua, sha: createHash('sha1').update(lua).digest('hex') };
}

/**
 * Checks one call against its script's shape; returns the reason it does not fit, or undefined. In a batch, a call
 * of the wrong size would shift every later call, so it is refused before it is queued.
 */
export function shapeMismatch(script: RedisScript<unknown>, keys: readonly unknown[], args: readonly unknown[]): string | undefined {
  const { keys: keyCount, args: argCount } = script.shape;
  if ((keyCount === undefined || keys.length === keyCount) && (argCount === undefined || args.length === argCount)) return undefined;
  const expected = [keyCount === undefined ? undefined : `${keyCount} keys`, argCount === undefined ? undefined : `${argCount} args`];
  return `Script ${script.name} takes ${expected.filter(Boolean).join(' and ')}, got ${keys.length} keys and ${args.length} args.`;
}

import { scriptIdentity } from './redis-script';

/**
 * A script that decides one item — its own `KEYS` and `ARGV`, its own reply — and is sent for a whole batch of
 * items in one EVALSHA (see {@link RedisExecutor.runBatched}). The body is written exactly like a one-item script; the driver
 * around it shadows `KEYS` and `ARGV` with the item's slices and collects one reply per item.
 *
 * Wire format of one batch:
 *   KEYS    the items' keys, concatenated (on a cluster, all in one slot: the batcher groups items by slot)
 *   ARGV    per item: its key count, its argument count, then its arguments; for a script declared with a fixed
 *           {@link BatchedScriptShape}, only its arguments (the counts are known, and each costs the server a
 *           string to parse and copy)
 *   Returns one entry per item, in order: the body's reply, or an error reply for that item alone
 *
 * Why this is safe: a script runs atomically, so every item is decided exactly as if it had been sent alone, in
 * the order the items were submitted, and no other client runs a command between two items. Each item runs under
 * `pcall`, so an error in one item (a key of the wrong type) fails that item only; items before it keep their
 * effects, as they would have as separate scripts.
 *
 * Why batch at all: most of the cost of a small script is per call on both sides (EVALSHA lookup, argument
 * parsing, a reply, a socket read and write on the server; a Command, a promise, a timer and a parse on the
 * client). Concurrent decisions share that cost here.
 */
export interface BatchedScript<TItem> {
  readonly name: string;
  readonly lua: string;
  readonly sha: string;
  readonly commandName: string;
  /** Keys and arguments of every item, when fixed (items then go without their counts). */
  readonly shape?: BatchedScriptShape;
  /** Phantom field carrying one item's reply type. */
  readonly __item?: TItem;
}

/** The fixed number of keys and of arguments of every item of a script. */
export interface BatchedScriptShape {
  readonly keys: number;
  readonly args: number;
}

/**
 * Declares a batched script. `body` is the Lua of one item (uses `KEYS[i]`, `ARGV[i]`, ends with `return`; it must
 * not keep a reference to KEYS or ARGV, which are refilled for the next item);
 * `prelude` holds definitions shared by every item of a batch (local functions, constant tables), evaluated once
 * per batch rather than once per item.
 */
export function defineBatchedScript<TItem>(name: string, body: string, prelude = '', shape?: BatchedScriptShape): BatchedScript<TItem> {
  if (shape && (!isCount(shape.keys) || !isCount(shape.args) || shape.keys + shape.args === 0)) {
    throw new TypeError(`Batched script ${name}: shape needs whole numbers of keys and args, not both 0.`);
  }
  const lua = `${prelude}
local function decide(KEYS, ARGV)
${body}
end
local all_keys, all_args = KEYS, ARGV
local replies = {}
-- One KEYS and one ARGV table for every item, refilled (and trimmed, so # is right) rather than allocated per item.
local keys, args, key_top, arg_top = {}, {}, 0, 0
${shape ? fixedShapeLoop(shape) : COUNTED_LOOP}
  local ok, reply = pcall(decide, keys, args)
  if not ok then
    -- A failed redis.call raises its error reply (a string starting with its code, or a table carrying err);
    -- a Lua runtime error raises a plain message, which gets the generic ERR code.
    if type(reply) == 'table' and reply.err then
    elseif type(reply) == 'string' and string.find(reply, '^%u+ ') then reply = { err = reply }
    else reply = { err = 'ERR ' .. tostring(reply) } end
  elseif reply == nil then
    -- nil would end the reply array early.
    reply = false
  end
  replies[n] = reply
end
return replies
`;
  return { name, lua, shape, ...scriptIdentity(name, lua) };
}

// Items carry their counts: read them, fill the tables, trim what the previous item left.
const COUNTED_LOOP = `local k, a, n, last = 0, 1, 0, #all_args
while a <= last do
  local key_count, arg_count = tonumber(all_args[a]), tonumber(all_args[a + 1])
  for j = 1, key_count do keys[j] = all_keys[k + j] end
  for j = key_count + 1, key_top do keys[j] = nil end
  for j = 1, arg_count do args[j] = all_args[a + 1 + j] end
  for j = arg_count + 1, arg_top do args[j] = nil end
  key_top, arg_top = key_count, arg_count
  k = k + key_count
  a = a + 2 + arg_count
  n = n + 1`;

// Every item has the same counts: unrolled assignments, nothing to trim.
function fixedShapeLoop({ keys, args }: BatchedScriptShape): string {
  const fill = (table: string, source: string, base: string, count: number) =>
    Array.from({ length: count }, (_, j) => `  ${table}[${j + 1}] = ${source}[${base} + ${j + 1}]`).join('\n');
  const items = keys > 0 ? `#all_keys / ${keys}` : `#all_args / ${args}`;
  return `for n = 1, ${items} do
${fill('keys', 'all_keys', `(n - 1) * ${keys}`, keys)}
${fill('args', 'all_args', `(n - 1) * ${args}`, args)}`;
}

function isCount(value: number): boolean {
  return Number.isInteger(value) && value >= 0;
}

/**
 * Checks one item against its script's shape; returns the reason it does not fit, or undefined.
 * An item of the wrong size would shift every later item of its batch, so it is refused before it is queued.
 */
export function shapeMismatch(script: BatchedScript<unknown>, keys: readonly unknown[], args: readonly unknown[]): string | undefined {
  const { shape } = script;
  if (!shape || (keys.length === shape.keys && args.length === shape.args)) return undefined;
  return `Script ${script.name} takes ${shape.keys} keys and ${shape.args} args per item, got ${keys.length} and ${args.length}.`;
}

/** The key count, keys and ARGV of a batch holding one item (e.g. a script that must share a pipeline). */
export function batchOfOne(
  script: BatchedScript<unknown>,
  keys: readonly string[],
  args: ReadonlyArray<string | number | Buffer>,
): Array<string | number | Buffer> {
  const mismatch = shapeMismatch(script, keys, args);
  if (mismatch) throw new TypeError(mismatch);
  return script.shape ? [keys.length, ...keys, ...args] : [keys.length, ...keys, keys.length, args.length, ...args];
}

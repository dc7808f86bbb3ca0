import { declareScript, scriptCommandName } from './redis-script';

/**
 * A script that decides one item — its own `KEYS` and `ARGV`, its own reply — and is sent for a whole batch of
 * items in one EVALSHA (see {@link runBatched}). The body is written exactly like a one-item script; the driver
 * around it shadows `KEYS` and `ARGV` with the item's slices and collects one reply per item.
 *
 * Wire format of one batch:
 *   KEYS    the items' keys, concatenated (on a cluster, all in one slot: the batcher groups items by slot)
 *   ARGV    per item: its key count, its argument count, then its arguments
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
  readonly commandName: string;
  /** Always undefined: a batch passes its key count first. */
  readonly numberOfKeys?: undefined;
  /** Phantom field carrying one item's reply type. */
  readonly __item?: TItem;
}

/**
 * Declares a batched script. `body` is the Lua of one item (uses `KEYS[i]`, `ARGV[i]`, ends with `return`; it must
 * not keep a reference to KEYS or ARGV, which are refilled for the next item);
 * `prelude` holds definitions shared by every item of a batch (local functions, constant tables), evaluated once
 * per batch rather than once per item.
 */
export function defineBatchedScript<TItem>(name: string, body: string, prelude = ''): BatchedScript<TItem> {
  const lua = `${prelude}
local function decide(KEYS, ARGV)
${body}
end
local all_keys, all_args = KEYS, ARGV
local replies = {}
-- One KEYS and one ARGV table for every item, refilled (and trimmed, so # is right) rather than allocated per item.
local keys, args, key_top, arg_top = {}, {}, 0, 0
local k, a, n, last = 0, 1, 0, #all_args
while a <= last do
  local key_count, arg_count = tonumber(all_args[a]), tonumber(all_args[a + 1])
  for j = 1, key_count do keys[j] = all_keys[k + j] end
  for j = key_count + 1, key_top do keys[j] = nil end
  for j = 1, arg_count do args[j] = all_args[a + 1 + j] end
  for j = arg_count + 1, arg_top do args[j] = nil end
  key_top, arg_top = key_count, arg_count
  k = k + key_count
  a = a + 2 + arg_count
  n = n + 1
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
  return declareScript<BatchedScript<TItem>>({ name, lua, commandName: scriptCommandName(name, lua) });
}

/** The arguments of a batch holding one item, for sending a batched script by hand (e.g. inside a pipeline). */
export function batchOfOne(keys: readonly string[], args: ReadonlyArray<string | number | Buffer>): Array<string | number | Buffer> {
  return [keys.length, ...keys, keys.length, args.length, ...args];
}

import { type RedisScript, type ScriptShape, scriptText, type ScriptText } from './redis-script';

type RedisArg = string | number | Buffer;

/**
 * The batch form of a script: one EVALSHA that runs the body once per call and returns one reply per call. The
 * driver around the body shadows `KEYS` and `ARGV` with the call's slices.
 *
 * Wire format of one batch:
 *   KEYS    the calls' keys, concatenated (on a cluster, all in one slot: calls are grouped by slot)
 *   ARGV    per call: its key count, its argument count, then its arguments; for a script whose keys and arguments
 *           are both fixed, only its arguments (the counts are known, and each costs the server a string to parse)
 *   Returns one entry per call, in order: the body's reply, or an error reply for that call alone
 *
 * Why this is safe: a script runs atomically, so every call is decided exactly as if it had been sent alone, in the
 * order the calls were submitted, and no other client runs a command between two calls. Each call runs under
 * `pcall`, so an error in one call (a key of the wrong type) fails that call only; calls before it keep their
 * effects, as they would have as separate scripts.
 *
 * Why batch at all: most of the cost of a small script is per command on both sides (EVALSHA lookup, argument
 * parsing, a reply, a socket read and write on the server; a Command, a promise, a timer and a parse on the
 * client). Calls that would otherwise wait behind outstanding replies share that cost here.
 */
export function batchFormOf(script: RedisScript<unknown>): ScriptText {
  let form = forms.get(script);
  if (!form) forms.set(script, (form = scriptText(driver(script, false))));
  return form;
}

/**
 * The batch form for calls of several slots served by one cluster node (see `node-lanes.ts`). Redis refuses declared
 * keys of different slots, so the keys travel in ARGV and the script is flagged `allow-cross-slot-keys` (Redis 7+):
 *   KEYS    none
 *   ARGV    the number of keys, the calls' keys, then the calls' arguments as in the batch form
 * A call whose slot this node does not serve (a resharding, a failover the client has not seen yet) fails alone
 * with the server's "non local key" error and is sent again on its own, with ioredis' redirections. A call with
 * several keys touches all of them with EXISTS before it runs, so during a migration (some keys moved, some not) it
 * fails before writing anything rather than halfway.
 */
export function crossSlotFormOf(script: RedisScript<unknown>): ScriptText {
  let form = crossSlotForms.get(script);
  if (!form) crossSlotForms.set(script, (form = scriptText(driver(script, true))));
  return form;
}

const forms = new WeakMap<RedisScript<unknown>, ScriptText>();
const crossSlotForms = new WeakMap<RedisScript<unknown>, ScriptText>();

function driver({ body, prelude, shape }: RedisScript<unknown>, crossSlot: boolean): string {
  return `${crossSlot ? '#!lua flags=allow-cross-slot-keys\n' : ''}${prelude}
local function decide(KEYS, ARGV)
${body}
end
${crossSlot ? CROSS_SLOT_INPUT : 'local all_keys, all_args = KEYS, ARGV'}
local replies = {}
-- One KEYS and one ARGV table for every call, refilled (and trimmed, so # is right) rather than allocated per call.
local keys, args, key_top, arg_top = {}, {}, 0, 0
${isFixed(shape) ? fixedShapeLoop(shape) : COUNTED_LOOP}
${crossSlot ? CROSS_SLOT_CALL : '  local ok, reply = pcall(decide, keys, args)'}
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
}

const CROSS_SLOT_INPUT = `local all_keys, all_args, key_total = {}, {}, tonumber(ARGV[1])
for i = 1, key_total do all_keys[i] = ARGV[i + 1] end
for i = key_total + 2, #ARGV do all_args[i - key_total - 1] = ARGV[i] end`;

const CROSS_SLOT_CALL = `  local ok, reply = true, nil
  if #keys > 1 then ok, reply = pcall(redis.call, 'EXISTS', unpack(keys)) end
  if ok then ok, reply = pcall(decide, keys, args) end`;

// Calls carry their counts: read them, fill the tables, trim what the previous call left.
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

// Every call has the same counts: unrolled assignments, nothing to trim.
function fixedShapeLoop({ keys, args }: Required<ScriptShape>): string {
  const fill = (table: string, source: string, base: string, count: number) =>
    Array.from({ length: count }, (_, j) => `  ${table}[${j + 1}] = ${source}[${base} + ${j + 1}]`).join('\n');
  const calls = keys > 0 ? `#all_keys / ${keys}` : `#all_args / ${args}`;
  return `for n = 1, ${calls} do
${fill('keys', 'all_keys', `(n - 1) * ${keys}`, keys)}
${fill('args', 'all_args', `(n - 1) * ${args}`, args)}`;
}

function isFixed(shape: ScriptShape): shape is Required<ScriptShape> {
  return shape.keys !== undefined && shape.args !== undefined && shape.keys + shape.args > 0;
}

/** The keys and ARGV of one EVALSHA of the batch form carrying `calls`, in its wire format. */
export function batchOf(
  script: RedisScript<unknown>,
  calls: ReadonlyArray<{ readonly keys: readonly string[]; readonly args: readonly RedisArg[] }>,
): { keys: string[]; args: RedisArg[] } {
  const counted = !isFixed(script.shape);
  const keys: string[] = [];
  const args: RedisArg[] = [];
  for (const call of calls) {
    for (const key of call.keys) keys.push(key);
    if (counted) args.push(call.keys.length, call.args.length);
    for (const arg of call.args) args.push(arg);
  }
  return { keys, args };
}

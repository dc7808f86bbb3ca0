import { defineScript, type RedisScript } from '../../core/scripts/redis-script';
import { FIXED_WINDOW_LUA } from './fixed-window.lua';
import { FUTURE_HITS_LUA } from './future-hits.lua';
import { REDIS_CLOCK_LUA } from './redis-clock.lua';
import { SLIDING_LOG_LUA } from './sliding-log.lua';
import { SLIDING_WINDOW_COUNTER_LUA } from './sliding-window-counter.lua';
import { TOKEN_BUCKET_LUA } from './token-bucket.lua';

/**
 * The script of a limiter with one policy, written from its algorithm's function (the same one the generic consume
 * script calls), so each algorithm is written once: the call checks, commits when allowed, and replies as the
 * generic script does for one policy without a block. (These checks write nothing: only the fixed window counts
 * first, and it has a script of its own below.)
 *
 * KEYS[1]  the policy's state key
 * ARGV[1]  cost (fractional only for token-bucket / GCRA, checked by the caller)
 * ARGV[2], ARGV[3]  the policy's two parameters (limit|capacity, windowMs|refillPerSecond)
 * ARGV[4]  (sliding log only) nonce, unique per call
 * Returns  { allowed (1|0), remaining, resetMs, retryAfterMs }
 *
 * Runs alone or as one call of a batch (see RedisScript): concurrent decisions share one EVALSHA, and the function
 * is defined once per batch. Time is Redis TIME, read once per batch (redis-clock.lua.ts; invariant 3).
 */
function singlePolicyScript(
  name: string,
  check: string,
  algorithmLua: string,
  { nonce = false }: { nonce?: boolean } = {},
): RedisScript<number[]> {
  return defineScript<number[]>(
    name,
    `
local cost = tonumber(ARGV[1])
local ok, available, reset_now, reset_after, retry, commit =
  ${check}(KEYS[1], tonumber(ARGV[2]), tonumber(ARGV[3]), cost, now_ms()${nonce ? ', ARGV[4]' : ''})
if not ok then return { 0, math.max(math.floor(available), 0), math.ceil(reset_now), math.ceil(retry) } end
if cost == 0 then return { 1, math.max(math.floor(available), 0), math.ceil(reset_now), 0 } end
commit()
return { 1, math.max(math.floor(available - cost), 0), math.ceil(reset_after), 0 }
`,
    { keys: 1, args: nonce ? 4 : 3, prelude: `${REDIS_CLOCK_LUA}${algorithmLua}` },
  );
}

/** Sliding log, one policy. */
export const singleSlidingLogScript = singlePolicyScript('rate_limit_sl', 'sliding_log', `${FUTURE_HITS_LUA}${SLIDING_LOG_LUA}`, {
  nonce: true,
});

/** Sliding window counter, one policy. */
export const singleSlidingWindowCounterScript = singlePolicyScript('rate_limit_swc', 'sliding_window_counter', SLIDING_WINDOW_COUNTER_LUA);

/** Token bucket (and GCRA, decided in its token-bucket form), one policy. */
export const singleTokenBucketScript = singlePolicyScript('rate_limit_tb', 'token_bucket', TOKEN_BUCKET_LUA);

/**
 * Fixed window, one policy: the fixed window's own steps (fixed-window.lua.ts: count, then settle) with no closure
 * and no clock, the arguments passed to Redis as they came.
 */
export const singleFixedWindowScript = defineScript<number[]>(
  'rate_limit_fw',
  `
local cost, limit, window = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
if cost == 0 then
  local ok, available, reset_now, _, retry = fixed_window(KEYS[1], limit, window, 0)
  return { ok and 1 or 0, math.max(available, 0), reset_now, retry }
end
local count, ttl = count_fixed_window(KEYS[1], window, cost, ARGV[3], ARGV[1])
local allowed = count <= limit
settle_fixed_window(KEYS[1], ARGV[3], cost, ARGV[1], count, ttl, allowed)
local left = math.max(ttl, 0)
if allowed then return { 1, limit - count, left > 0 and left or window, 0 } end
return { 0, math.max(limit - count + cost, 0), left, left > 0 and left or window }
`,
  { keys: 1, args: 3, prelude: FIXED_WINDOW_LUA },
);

import { defineScript } from '../../core/scripts/redis-script';
import { FIXED_WINDOW_ADJUST_LUA } from './fixed-window.lua';
import { REDIS_CLOCK_LUA } from './redis-clock.lua';
import { SLIDING_WINDOW_COUNTER_ADJUST_LUA } from './sliding-window-counter.lua';
import { SLIDING_LOG_ADJUST_LUA } from './sliding-log.lua';
import { TOKEN_BUCKET_ADJUST_LUA } from './token-bucket.lua';

const ADJUSTS_LUA = `${REDIS_CLOCK_LUA}${FIXED_WINDOW_ADJUST_LUA}${SLIDING_LOG_ADJUST_LUA}${SLIDING_WINDOW_COUNTER_ADJUST_LUA}${TOKEN_BUCKET_ADJUST_LUA}
-- GCRA (code 5) is kept in its token-bucket form (see compile-policies.ts).
local adjusts = { fixed_window_adjust, sliding_log_adjust, sliding_window_counter_adjust, token_bucket_adjust, token_bucket_adjust }
`;

/**
 * Gives units back to (`refund`, delta < 0) or takes units from (`penalize`, delta > 0) every policy of a limiter for
 * one identity, in one script: the same keys and state as the consume scripts, each policy kept within 0 and its
 * limit. Blocks are left as they are: a refund does not lift one, a penalty does not start one.
 *
 * KEYS[i]  the state key of policy i (one hash tag: one slot)
 * ARGV[1]  delta (units; fractional only for token-bucket / GCRA, checked by the caller)
 * ARGV[2]  nonce, unique per call when a policy keeps a sliding log (members added by a penalty), else empty
 * ARGV[3i..3i+2]  per policy: algorithm code and its two parameters, as in the consume script
 * Returns  per policy: remaining, resetMs (integers)
 *
 * Time is Redis TIME (invariant 3), read only if a policy is not a fixed window.
 */
export const ADJUST_SCRIPT = defineScript<number[]>(
  'rate_limit_adjust',
  `
local delta = tonumber(ARGV[1])
local nonce = ARGV[2]
local count = (#ARGV - 2) / 3
local now = 0
for i = 1, count do
  if ARGV[3 * i] ~= '1' then
    now = now_ms()
    break
  end
end
local out = {}
for i = 1, count do
  local j = 3 * i
  local remaining, reset = adjusts[tonumber(ARGV[j])](KEYS[i], tonumber(ARGV[j + 1]), tonumber(ARGV[j + 2]), delta, now, nonce .. ':' .. i)
  out[#out + 1] = math.max(math.floor(remaining + 1e-9), 0)
  out[#out + 1] = math.ceil(reset)
end
return out
`,
  { prelude: ADJUSTS_LUA },
);

import { SERVER_CLOCK_LUA } from '../../core/scripts/lua/server-clock.lua';

/**
 * The server clock of the rate-limit scripts (see SERVER_CLOCK_LUA: `now_ms()`, `now_ms_text()`) and
 * `count_text(x)`: a token count as exact text.
 */
export const REDIS_CLOCK_LUA = `${SERVER_CLOCK_LUA}
-- The exact text of a token count: whole counts (the usual case) with the cheaper %d, others with %.17g.
local function count_text(x)
  if x % 1 == 0 and x < 1e15 then return string.format('%d', x) end
  return string.format('%.17g', x)
end
`;

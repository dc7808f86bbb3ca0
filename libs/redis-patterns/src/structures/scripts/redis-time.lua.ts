/**
 * Lua snippet: `now` in milliseconds from the server clock (invariant 3), so app instances with skewed clocks
 * agree on every time-based decision. Paste at the top of a script.
 */
export const LUA_NOW_MS = `local __t = redis.call('TIME')
local now = tonumber(__t[1]) * 1000 + math.floor(tonumber(__t[2]) / 1000)`;

/** Lua: whether stream id `a` (`<ms>-<seq>`) comes after stream id `b` (ms up to 2^53 compare exactly as numbers). */
export const STREAM_ID_NEWER = `
local function newer(a, b)
  local am, as = string.match(a, '^(%d+)-(%d+)$')
  local bm, bs = string.match(b, '^(%d+)-(%d+)$')
  am, as, bm, bs = tonumber(am), tonumber(as), tonumber(bm), tonumber(bs)
  return am > bm or (am == bm and as > bs)
end`;

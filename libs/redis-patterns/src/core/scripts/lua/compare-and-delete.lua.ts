/**
 * Compare-and-delete, the body of every owner-checked release (locks, cache fill locks): deletes KEYS[1] only if it
 * still holds ARGV[1], the caller's token. Returns 1 when deleted, 0 when the key is gone or belongs to another
 * holder. The GET and the DEL must be one atomic step: with two commands, the key could expire and be taken by
 * another client between them, and the caller would delete that client's lock (invariant 2).
 */
export const COMPARE_AND_DELETE_LUA = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
`;

/** The ms part of a stream id (`<ms>-<seq>`): when the server stamped it. */
export function idMs(id: string): number {
  return Number(id.slice(0, id.indexOf('-')));
}

/** Whether stream id `a` comes after stream id `b` (ms and sequence compared as numbers, as Redis orders them). */
export function newer(a: string, b: string): boolean {
  const [am, as] = a.split('-').map(Number);
  const [bm, bs] = b.split('-').map(Number);
  return am > bm || (am === bm && as > bs);
}

import type { RoundSample } from './runner';

/** A round that measured what it says: no failed operation and, in an open loop, every arrival served on schedule. */
export const measuredCleanly = (r: RoundSample): boolean => r.errors === 0 && !(r.shortfall! > 0);

/** Within-round values of `f(numerator round, denominator round)`, leaving out rounds either side did not measure cleanly. */
export function pairedRounds(
  num: readonly RoundSample[],
  den: readonly RoundSample[],
  f: (n: RoundSample, d: RoundSample) => number,
): { values: number[]; excluded: number } {
  const values: number[] = [];
  let excluded = 0;
  for (const n of num) {
    const d = den.find((r) => r.round === n.round);
    if (!d) continue;
    if (!measuredCleanly(n) || !measuredCleanly(d)) {
      excluded++;
      continue;
    }
    const value = f(n, d);
    if (Number.isFinite(value)) values.push(value);
  }
  return { values, excluded };
}

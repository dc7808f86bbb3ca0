import type { RoundSample } from './runner';

/** Within-round values of `f(numerator round, denominator round)`, leaving out rounds where either side had errors. */
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
    if (n.errors > 0 || d.errors > 0) {
      excluded++;
      continue;
    }
    const value = f(n, d);
    if (Number.isFinite(value)) values.push(value);
  }
  return { values, excluded };
}

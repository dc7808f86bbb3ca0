import { fmt, lowerQuartile, median, upperQuartile } from './stats';

/**
 * The performance bar on a 2-core, noisy machine: a target is met only when at least three quarters of the rounds
 * meet it, never by the median alone. For "≥ X" the lower quartile of the within-round values must be ≥ X, for
 * "≤ X" the upper quartile ≤ X, for "below X" the upper quartile < X.
 */
export type Verdict = 'met' | 'missed' | 'not measured' | 'not judged by rounds';

/** What a target asks of each round's value; a bound with no field is no target. */
export interface Bound {
  atLeast?: number;
  atMost?: number;
  below?: number;
}

/** How the within-round values spread: the median, the middle half (p25–p75 by count) and the extremes. */
export interface RoundSpread {
  n: number;
  median: number;
  p25: number;
  p75: number;
  min: number;
  max: number;
}

/** The spread of the finite values of `values`, or undefined when there is none. */
export function spreadOf(values: readonly number[] | undefined): RoundSpread | undefined {
  const finite = (values ?? []).filter((v) => Number.isFinite(v));
  if (finite.length === 0) return undefined;
  return {
    n: finite.length,
    median: median(finite),
    p25: lowerQuartile(finite),
    p75: upperQuartile(finite),
    min: Math.min(...finite),
    max: Math.max(...finite),
  };
}

const hasBound = (bound: Bound): boolean => bound.atLeast !== undefined || bound.atMost !== undefined || bound.below !== undefined;

/**
 * The verdict on `perRound` (the within-round values) against `bound`: undefined when there is no target, "not
 * judged by rounds" when the per-round values were not recorded (a summary alone cannot say how many rounds met it).
 */
export function judgeRounds(perRound: readonly number[] | undefined, bound: Bound): Verdict | undefined {
  if (!hasBound(bound)) return undefined;
  if (perRound === undefined) return 'not judged by rounds';
  const spread = spreadOf(perRound);
  if (!spread) return 'not measured';
  const met =
    (bound.atLeast === undefined || spread.p25 >= bound.atLeast) &&
    (bound.atMost === undefined || spread.p75 <= bound.atMost) &&
    (bound.below === undefined || spread.p75 < bound.below);
  return met ? 'met' : 'missed';
}

/** Several conditions of one target: missed if any is, then not measured, then not judged, else met. */
export function allOf(verdicts: ReadonlyArray<Verdict | undefined>): Verdict | undefined {
  const judged = verdicts.filter((v): v is Verdict => v !== undefined);
  if (judged.length === 0) return undefined;
  for (const v of ['missed', 'not measured', 'not judged by rounds'] as const) if (judged.includes(v)) return v;
  return 'met';
}

/** The boolean kept beside a verdict in results.json: true when met, false when missed, else undefined. */
export const metOf = (verdict: Verdict | undefined): boolean | undefined =>
  verdict === 'met' ? true : verdict === 'missed' ? false : undefined;

/** `1.52 (p25–p75 1.31–1.70)` — the median and the middle half the verdict is read from. */
export function fmtSpread(spread: RoundSpread | undefined, digits = 3): string {
  if (!spread) return '–';
  if (spread.n === 1) return fmt(spread.median, digits);
  return `${fmt(spread.median, digits)} (p25–p75 ${fmt(spread.p25, digits)}–${fmt(spread.p75, digits)})`;
}

/** A verdict as a table shows it: a missed target stands out. */
export function verdictText(verdict: Verdict | undefined): string {
  if (verdict === undefined) return '';
  return verdict === 'missed' ? '**missed**' : verdict;
}

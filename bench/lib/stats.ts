/** Small, dependency-free statistics for the benchmark report. */

/** The q-quantile (0..1) of `values` by nearest rank on a sorted copy; NaN for an empty list. */
export function quantile(values: ArrayLike<number>, q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = Float64Array.from(values).sort();
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank];
}

/** Median of a list (the 0.5 quantile, averaging the two middle values for an even count). */
export function median(values: readonly number[]): number {
  const finite = values.filter((v) => Number.isFinite(v));
  if (finite.length === 0) return Number.NaN;
  const sorted = [...finite].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * The value that at least three quarters of `values` reach (are at or above): the lower quartile of the rounds, by
 * count. With n rounds it is the (floor(n/4)+1)-th smallest, so "lower quartile ≥ X" is exactly "at least ⌈3n/4⌉
 * rounds are ≥ X" (all of 1–3 rounds, 3 of 4, 4 of 5, 6 of 7); NaN when there is no finite value.
 */
export function lowerQuartile(values: readonly number[]): number {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  return sorted.length ? sorted[Math.floor(sorted.length / 4)] : Number.NaN;
}

/** The value that at least three quarters of `values` stay at or below: the upper quartile of the rounds, by count. */
export function upperQuartile(values: readonly number[]): number {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  return sorted.length ? sorted[sorted.length - 1 - Math.floor(sorted.length / 4)] : Number.NaN;
}

/** A median with the smallest and largest value it summarises (the spread shown as `min–max`). */
export interface Summary {
  median: number;
  min: number;
  max: number;
  n: number;
}

/** Median, min and max of the finite values of `values`. */
export function summarize(values: readonly number[]): Summary {
  const finite = values.filter((v) => Number.isFinite(v));
  if (finite.length === 0) return { median: Number.NaN, min: Number.NaN, max: Number.NaN, n: 0 };
  return { median: median(finite), min: Math.min(...finite), max: Math.max(...finite), n: finite.length };
}

/** Formats a number with a sensible number of significant digits for a table cell. */
export function fmt(value: number, digits = 3): string {
  if (!Number.isFinite(value)) return '–';
  const abs = Math.abs(value);
  if (abs >= 1000) return Math.round(value).toLocaleString('en-US');
  if (abs === 0) return '0';
  return Number(value.toPrecision(digits)).toString();
}

/** `median (min–max)` for a summary. */
export function fmtSummary(summary: Summary | undefined, digits = 3): string {
  if (!summary || summary.n === 0) return '–';
  if (summary.n === 1) return fmt(summary.median, digits);
  return `${fmt(summary.median, digits)} (${fmt(summary.min, digits)}–${fmt(summary.max, digits)})`;
}

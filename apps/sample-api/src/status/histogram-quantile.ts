import type { Buckets } from './library-totals';

/**
 * The q-quantile of the values counted in explicit buckets, as Prometheus' `histogram_quantile` estimates it: find
 * the bucket holding the rank, then interpolate linearly inside it (values are assumed spread evenly over the
 * bucket). A rank in the overflow bucket answers the highest finite boundary, since nothing bounds it from above.
 * Null when the buckets are empty.
 */
export function histogramQuantile(q: number, { boundaries, counts }: Buckets): number | null {
  const total = counts.reduce((sum, count) => sum + count, 0);
  if (total === 0) return null;
  const rank = q * total;
  let below = 0;
  for (let i = 0; i < counts.length; i++) {
    if (below + counts[i] >= rank && counts[i] > 0) {
      if (i >= boundaries.length) return boundaries[boundaries.length - 1] ?? null;
      const lower = i === 0 ? 0 : boundaries[i - 1];
      return lower + (boundaries[i] - lower) * ((rank - below) / counts[i]);
    }
    below += counts[i];
  }
  return boundaries[boundaries.length - 1] ?? null;
}

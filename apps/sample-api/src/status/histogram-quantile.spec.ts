import { histogramQuantile } from './histogram-quantile';

describe('histogramQuantile', () => {
  const boundaries = [0.001, 0.01, 0.1];

  it('interpolates inside the bucket that holds the rank, as Prometheus does', () => {
    // 100 values: 50 at or under 1 ms, 40 in (1, 10] ms, 10 in (10, 100] ms.
    const counts = [50, 40, 10, 0];
    expect(histogramQuantile(0.5, { boundaries, counts })).toBeCloseTo(0.001);
    expect(histogramQuantile(0.7, { boundaries, counts })).toBeCloseTo(0.001 + 0.009 * (20 / 40));
    expect(histogramQuantile(0.99, { boundaries, counts })).toBeCloseTo(0.01 + 0.09 * (9 / 10));
    expect(histogramQuantile(0.25, { boundaries, counts })).toBeCloseTo(0.0005);
  });

  it('answers the highest finite boundary for a rank in the overflow bucket, and null without values', () => {
    expect(histogramQuantile(0.99, { boundaries, counts: [1, 0, 0, 99] })).toBe(0.1);
    expect(histogramQuantile(0.99, { boundaries, counts: [0, 0, 0, 0] })).toBeNull();
    expect(histogramQuantile(0.99, { boundaries: [], counts: [] })).toBeNull();
  });

  it('skips empty buckets below the rank', () => {
    expect(histogramQuantile(0.99, { boundaries, counts: [0, 0, 4, 0] })).toBeCloseTo(0.01 + 0.09 * 0.99);
  });
});

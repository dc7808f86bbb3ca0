import { performance } from 'node:perf_hooks';
import { attemptUntil, backoffDelayMs } from './backoff';

describe('backoffDelayMs', () => {
  it('grows exponentially from the base, stays in the upper half of the ceiling, and caps at the maximum', () => {
    for (let attempt = 0; attempt < 12; attempt++) {
      const ceiling = Math.min(500, 25 * 2 ** attempt);
      expect(backoffDelayMs(attempt, 25, 500, () => 0)).toBe(Math.round(ceiling / 2));
      expect(backoffDelayMs(attempt, 25, 500, () => 0.999999)).toBe(Math.round(ceiling));
    }
    expect(backoffDelayMs(1000, 25, 500)).toBeLessThanOrEqual(500);
  });

  it('jitters: contenders that collided do not all pick the same delay', () => {
    const delays = new Set(Array.from({ length: 50 }, () => backoffDelayMs(4, 25, 500)));
    expect(delays.size).toBeGreaterThan(10);
  });
});

describe('attemptUntil', () => {
  const delays = { retryDelayMs: 5, maxRetryDelayMs: 20 };
  const isLease = (outcome: string | { reason: string; retryAfterMs: number }): outcome is string => typeof outcome === 'string';

  it('retries with backoff until an attempt gets the lease', async () => {
    let attempts = 0;
    const slept: number[] = [];
    const outcome = await attemptUntil(
      async () => (++attempts === 3 ? 'lease' : { reason: 'contention', retryAfterMs: 0 }),
      isLease,
      performance.now() + 10_000,
      delays,
      async (ms) => void slept.push(ms),
    );
    expect(outcome).toBe('lease');
    expect(slept).toHaveLength(2);
    for (const ms of slept) expect(ms).toBeLessThanOrEqual(20);
  });

  it('returns the last refusal once the deadline has passed, never sleeping past it nor past the holder’s TTL', async () => {
    const slept: number[] = [];
    const deadline = performance.now() + 50;
    const outcome = await attemptUntil(
      async () => ({ reason: 'contention', retryAfterMs: 3 }),
      isLease,
      deadline,
      { retryDelayMs: 1000, maxRetryDelayMs: 1000 },
      (ms) => {
        slept.push(ms);
        return new Promise((resolve) => setTimeout(resolve, ms));
      },
    );
    expect(outcome).toEqual({ reason: 'contention', retryAfterMs: 3 });
    expect(performance.now()).toBeGreaterThanOrEqual(deadline);
    for (const ms of slept) expect(ms).toBeLessThanOrEqual(4);
  });
});

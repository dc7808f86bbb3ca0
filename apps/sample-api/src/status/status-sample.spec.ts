import { emptyTotals } from './library-totals';
import { increaseBetween, sampleOf } from './status-sample';

describe('increaseBetween and sampleOf', () => {
  it('turns two cumulative readings into one interval: rates, hit ratio, lock-wait p99 from bucket increments', () => {
    const previous = emptyTotals();
    previous.cache.hit = 10;
    previous.cache.miss = 5;
    previous.decisions.denied = 2;
    previous.lockWait = { boundaries: [0.001, 0.01], counts: [5, 0, 0] };
    const current = emptyTotals();
    current.cache.hit = 16;
    current.cache.near_hit = 2;
    current.cache.miss = 7;
    current.decisions.denied = 6;
    current.lockWait = { boundaries: [0.001, 0.01], counts: [5, 10, 0] };
    current.streamLag = 3;

    const sample = sampleOf(increaseBetween(previous, current), 2, 1000);
    expect(sample).toMatchObject({ at: 1000, hitRatio: 8 / 10, cacheReadsPerSecond: 5, streamLag: 3 });
    expect(sample.decisionsPerSecond.denied).toBe(2);
    // 10 waits in (1, 10] ms: the 99th percentile is 99 % of the way through that bucket.
    expect(sample.lockWaitP99Ms).toBeCloseTo(9.91);
  });

  it('counts a counter that went down as restarted from zero, and leaves the ratio and p99 empty without data', () => {
    const previous = emptyTotals();
    previous.cache.hit = 50;
    const current = emptyTotals();
    current.cache.hit = 3;
    expect(increaseBetween(previous, current).cache.hit).toBe(3);
    const idle = sampleOf(increaseBetween(current, current), 1, 0);
    expect(idle.hitRatio).toBeNull();
    expect(idle.lockWaitP99Ms).toBeNull();
  });
});

import { backoffDelayMs, LocalWaiters } from './backoff';

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

describe('LocalWaiters', () => {
  it('wakes the oldest waiter of a key at once, others keep sleeping until their timer', async () => {
    const waiters = new LocalWaiters();
    const woken: string[] = [];
    const first = waiters.sleep('k', 10_000).then(() => woken.push('first'));
    const second = waiters.sleep('k', 30).then(() => woken.push('second'));
    waiters.wakeOne('k');
    await first;
    expect(woken).toEqual(['first']);
    await second;
    expect(woken).toEqual(['first', 'second']);
    waiters.wakeOne('k'); // nobody waiting: a no-op
  });

  it('wakeAll releases every sleeper', async () => {
    const waiters = new LocalWaiters();
    const all = Promise.all([waiters.sleep('a', 60_000), waiters.sleep('b', 60_000)]);
    waiters.wakeAll();
    await expect(all).resolves.toHaveLength(2);
  });
});

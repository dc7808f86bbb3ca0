import { HandlerQueue } from './handler-queue';

describe('HandlerQueue', () => {
  it('handles messages one at a time in arrival order, errors reported and skipped', async () => {
    const seen: number[] = [];
    const errors: unknown[] = [];
    let active = 0;
    let maxActive = 0;
    const queue = new HandlerQueue(
      async (message) => {
        active++;
        maxActive = Math.max(maxActive, active);
        await new Promise((resolve) => setImmediate(resolve));
        active--;
        if (message === 2) throw new Error('two');
        seen.push(message as number);
      },
      100,
      (error) => errors.push(error),
      () => undefined,
    );
    for (let i = 0; i < 5; i++) queue.push(i, 'c');
    await queue.whenIdle();
    expect(seen).toEqual([0, 1, 3, 4]);
    expect(errors).toHaveLength(1);
    expect(maxActive).toBe(1);
  });

  it('drops (and counts) what exceeds its capacity instead of growing without bound', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const drops: number[] = [];
    const queue = new HandlerQueue(
      () => gate,
      3,
      () => undefined,
      (_c, n) => drops.push(n),
    );
    const accepted = Array.from({ length: 6 }, (_, i) => queue.push(i, 'c'));
    // One is running, three wait, two are dropped.
    expect(accepted).toEqual([true, true, true, true, false, false]);
    expect(queue.dropped).toBe(2);
    expect(drops).toEqual([1, 2]);
    release();
    await queue.whenIdle();
    expect(queue.size).toBe(0);
  });
});

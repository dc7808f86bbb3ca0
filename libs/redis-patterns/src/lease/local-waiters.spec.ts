import { LocalWaiters } from './local-waiters';

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

  it('wakeAll(key) releases every sleeper of that key only', async () => {
    const waiters = new LocalWaiters();
    const woken: string[] = [];
    const ofK = Promise.all([waiters.sleep('k', 60_000), waiters.sleep('k', 60_000)]).then(() => woken.push('k'));
    const other = waiters.sleep('other', 30).then(() => woken.push('other'));
    waiters.wakeAll('k');
    waiters.wakeAll('nobody'); // nobody waiting: a no-op
    await ofK;
    expect(woken).toEqual(['k']);
    await other;
    expect(woken).toEqual(['k', 'other']);
  });
});

import { MemoryTagIndex } from './memory-tag-index';

describe('MemoryTagIndex', () => {
  it('keeps the later expiry of a member registered again (ZADD GT), and adds new members', () => {
    const index = new MemoryTagIndex();
    index.add('a', 100);
    index.add('a', 300);
    index.add('a', 200);
    index.add('b', 50);
    expect(index.expiryOf('a')).toBe(300);
    expect(index.expiryOf('b')).toBe(50);
    expect(index.size).toBe(2);
  });

  it('prunes expired members earliest first, at most `max` per call, and never a live one', () => {
    const index = new MemoryTagIndex();
    for (let i = 0; i < 50; i++) index.add(`dead${i}`, 1000 - i);
    index.add('live', 5000);
    // Registered again later: its first expiry (in the past) must not remove it.
    index.add('moved', 10);
    index.add('moved', 6000);
    expect(index.prune(2000, 20)).toBe(20);
    // The earliest expiries went first: dead49 (951) … dead30 (970).
    expect(index.expiryOf('dead49')).toBeUndefined();
    expect(index.expiryOf('dead29')).toBe(971);
    expect(index.size).toBe(32);
    expect(index.prune(2000, 1000)).toBe(30);
    expect(index.size).toBe(2);
    expect(index.live(2000).sort()).toEqual(['live', 'moved']);
    expect(index.prune(5000, 1000)).toBe(1);
    expect(index.live(5000)).toEqual(['moved']);
  });

  it('takes only members whose expiry is after now as live (an expiry at now has passed)', () => {
    const index = new MemoryTagIndex();
    index.add('at', 100);
    index.add('after', 101);
    expect(index.live(100)).toEqual(['after']);
  });

  it('prunes in expiry order whatever the order of registration (a heap, checked against a sort)', () => {
    const index = new MemoryTagIndex();
    const expiries = new Map<string, number>();
    let seed = 7;
    const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    for (let i = 0; i < 2000; i++) {
      const member = `k${Math.floor(random() * 500)}`;
      const at = Math.floor(random() * 10_000);
      index.add(member, at);
      expiries.set(member, Math.max(expiries.get(member) ?? 0, at));
    }
    for (const now of [1000, 2500, 2500, 7000, 9999]) {
      index.prune(now, 100);
      const expired = [...expiries.values()].filter((at) => at <= now).sort((x, y) => x - y);
      // What is left expired is the latest of the expired ones: pruning took the earliest.
      const left = [...expiries.keys()].map((member) => index.expiryOf(member)).filter((at): at is number => at !== undefined && at <= now);
      expect(left.sort((x, y) => x - y)).toEqual(expired.slice(expired.length - left.length));
      for (const [member, at] of expiries) if (at > now) expect(index.expiryOf(member)).toBe(at);
    }
  });
});

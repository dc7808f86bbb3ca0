import { HOT_KEY_FREQ, isLfuPolicy, judgeHotKeys } from './hot-keys';

const sample = { scanned: 3, complete: true, limit: 10_000 };

describe('hot keys', () => {
  it('says how to measure them under a policy that keeps no frequencies', () => {
    expect(isLfuPolicy('allkeys-lfu')).toBe(true);
    expect(isLfuPolicy('volatile-lfu')).toBe(true);
    expect(isLfuPolicy('allkeys-lru')).toBe(false);
    const check = judgeHotKeys('noeviction', [], sample, 5);
    expect(check).toMatchObject({ name: 'hot-keys', status: 'pass' });
    expect(check.reason).toMatch(/not measured: maxmemory-policy noeviction .*volatile-lfu.*allkeys-lfu.*redis-cli --hotkeys/);
  });

  it('passes cool keys, listing the hottest', () => {
    const check = judgeHotKeys(
      'allkeys-lfu',
      [
        { key: 'a', freq: 5 },
        { key: 'b', freq: 40 },
        { key: 'c', freq: 0 },
      ],
      sample,
      2,
    );
    expect(check).toMatchObject({ status: 'pass', evidence: ['b (OBJECT FREQ 40)', 'a (OBJECT FREQ 5)'] });
  });

  it(`warns from OBJECT FREQ ${HOT_KEY_FREQ}, with the fix`, () => {
    const check = judgeHotKeys(
      'volatile-lfu',
      [
        { key: 'a', freq: 5 },
        { key: 'hot', freq: HOT_KEY_FREQ, node: 'n1:1' },
      ],
      sample,
      1,
    );
    expect(check.status).toBe('warn');
    expect(check.reason).toMatch(/^volatile-lfu: 1 of 3 keys sampled at OBJECT FREQ 100 or more/);
    expect(check.evidence).toEqual(['hot (OBJECT FREQ 100 on n1:1)']);
    expect(check.fix).toContain('nearCache');
  });
});

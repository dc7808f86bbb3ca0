import { FRAGMENTATION_MIN_BYTES, judgeEvictions, judgeFragmentation, judgeRejectedConnections, serverStats } from './memory-and-clients';

const MB = 1024 * 1024;
const stats = (fields: Record<string, string>, endpoint?: string) => serverStats(fields, endpoint);

describe('fragmentation, evictions and rejected connections', () => {
  it('reads the INFO fields', () => {
    expect(
      stats({ mem_fragmentation_ratio: '1.8', used_memory: '2048', evicted_keys: '3', rejected_connections: '4', maxclients: '10000' }),
    ).toEqual({
      endpoint: undefined,
      fragmentationRatio: 1.8,
      usedMemory: 2048,
      evictedKeys: 3,
      rejectedConnections: 4,
      maxclients: 10000,
    });
  });

  it('judges the fragmentation ratio only with enough memory in use', () => {
    const small = judgeFragmentation([stats({ mem_fragmentation_ratio: '9.5', used_memory: String(MB) })]);
    expect(small).toMatchObject({ name: 'fragmentation', status: 'pass', reason: expect.stringContaining('under 100 MB in use') });
    const fine = judgeFragmentation([stats({ mem_fragmentation_ratio: '1.2', used_memory: String(FRAGMENTATION_MIN_BYTES) })]);
    expect(fine).toMatchObject({ status: 'pass', reason: expect.stringContaining('between 1 and 1.5') });
    const high = judgeFragmentation([stats({ mem_fragmentation_ratio: '1.9', used_memory: String(200 * MB) }, 'n:1')]);
    expect(high).toMatchObject({ status: 'warn', fix: expect.stringContaining('activedefrag yes') });
    expect(high.reason).toContain('ratio 1.9 with used_memory 200 MB on n:1');
    expect(judgeFragmentation([stats({ mem_fragmentation_ratio: '0.7', used_memory: String(200 * MB) })]).reason).toContain('swapped');
  });

  it('warns about evictions only where keys must stay', () => {
    const none = [stats({ evicted_keys: '0' })];
    const some = [stats({ evicted_keys: '12' }, 'n:1'), stats({ evicted_keys: '0' }, 'n:2')];
    expect(judgeEvictions(none, ['locks']).status).toBe('pass');
    expect(judgeEvictions(some, ['cache'])).toMatchObject({ status: 'pass', reason: expect.stringContaining('a cache making room') });
    const locks = judgeEvictions(some, ['cache', 'locks', 'sessions']);
    expect(locks).toMatchObject({ status: 'warn', evidence: ['12 keys evicted on n:1'] });
    expect(locks.reason).toMatch(/^evicted_keys 12 .*serves locks, sessions/);
  });

  it('warns about connections rejected at maxclients', () => {
    expect(judgeRejectedConnections([stats({ rejected_connections: '0', maxclients: '100' })]).reason).toBe(
      'rejected_connections 0 (maxclients 100)',
    );
    const check = judgeRejectedConnections([stats({ rejected_connections: '3', maxclients: '2' })]);
    expect(check).toMatchObject({ status: 'warn', reason: expect.stringMatching(/^rejected_connections 3 \(maxclients 2\)/) });
    expect(check.fix).toMatch(/CLIENT LIST/);
  });
});

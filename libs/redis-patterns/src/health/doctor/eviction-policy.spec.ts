import { judgeEvictionPolicy } from './eviction-policy';

describe('judgeEvictionPolicy', () => {
  it.each([
    ['noeviction', 0, ['cache'], 'warn'],
    ['noeviction', 0, ['locks'], 'pass'],
    ['noeviction', 1024, ['cache'], 'warn'],
    ['noeviction', 1024, ['streams'], 'pass'],
    ['allkeys-lru', 1024, ['cache'], 'pass'],
    ['allkeys-lfu', 1024, ['cache', 'locks'], 'warn'],
    ['allkeys-random', 1024, ['streams'], 'warn'],
    ['volatile-lru', 1024, ['cache', 'locks', 'streams'], 'pass'],
    ['volatile-ttl', 0, ['cache'], 'warn'],
    ['volatile-ttl', 0, ['locks'], 'pass'],
    ['something-new', 0, ['cache'], 'warn'],
  ] as const)('%s with maxmemory %d for %j is %s', (policy, maxmemory, workloads, status) => {
    const check = judgeEvictionPolicy(policy, maxmemory, workloads);
    expect(check.name).toBe('eviction-policy');
    expect(check.status).toBe(status);
    expect(check.reason).toContain(policy);
  });
});

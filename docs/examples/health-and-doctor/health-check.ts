import type { RedisPatternsHealthIndicator } from 'nestjs-redis-patterns/health';

/** What a status page or a probe of yours asks the indicator (it is injectable: take it in a constructor). */
export async function probe(health: RedisPatternsHealthIndicator) {
  // #region check
  const result = await health.check('redis', { timeoutMs: 1000, maxMemoryRatio: 0.9 });
  // { redis: { status: 'up', connections: { default: { status: 'up', kind: 'standalone', endpoint: '127.0.0.1:6379',
  //   latencyMs: 0.31, role: 'master', usedMemory: 1048576, maxmemory: 0, memoryRatio: null } } } }
  // #endregion check

  // #region summary
  await health.check('redis', { details: false });
  // { redis: { status: 'up', connections: { default: { status: 'up' } } } }
  // #endregion summary
  return result;
}

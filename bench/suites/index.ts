import { cacheGroup } from './cache.suite';
import { idempotencyGroup, semaphoreGroup } from './coordination.suite';
import { httpCpuGroup, httpFastifyCpuGroup, httpFastifyGroup, httpGroup, httpPlan } from './http.suite';
import { latencyGroup } from './latency.suite';
import { lockGroup } from './lock.suite';
import { nearCacheGroup, nearCacheNotes } from './near-cache.suite';
import { rateLimitClusterGroup } from './rate-limit-cluster.suite';
import { rateLimitMultiGroup } from './rate-limit-multi.suite';
import { rateLimitGroup } from './rate-limit.suite';
import { redisBenchmarkGroup } from './redis-benchmark.suite';
import { clusterScalingGroup, scalingGroup } from './scaling.suite';
import { streamsGroup } from './streams.suite';
import { writeBehindGroup } from './write-behind.suite';
import type { Suite } from './suite-context';

/** Every suite, in report order. */
export const SUITES: Suite[] = [
  { id: 'cache', create: cacheGroup, sweep: true },
  { id: 'near-cache', create: nearCacheGroup, notes: nearCacheNotes },
  { id: 'rate-limit', create: rateLimitGroup, sweep: true },
  { id: 'rate-limit-multi', create: rateLimitMultiGroup, sweep: true },
  { id: 'rate-limit-cluster', create: rateLimitClusterGroup, sweep: true },
  { id: 'lock', create: lockGroup, sweep: true },
  { id: 'semaphore', create: semaphoreGroup, sweep: true },
  { id: 'idempotency', create: idempotencyGroup, sweep: true },
  { id: 'streams', create: streamsGroup },
  { id: 'write-behind', create: writeBehindGroup, sweep: true },
  { id: 'redis-benchmark', create: redisBenchmarkGroup },
  { id: 'latency', create: latencyGroup },
  { id: 'scaling', create: scalingGroup },
  { id: 'scaling-cluster', create: clusterScalingGroup },
  { id: 'http', create: httpGroup, plan: httpPlan },
  { id: 'http-cpu', create: httpCpuGroup, plan: httpPlan },
  { id: 'http-fastify', create: httpFastifyGroup, plan: httpPlan },
  { id: 'http-fastify-cpu', create: httpFastifyCpuGroup, plan: httpPlan },
];

import { cacheGroup } from './cache.suite';
import { idempotencyGroup, semaphoreGroup } from './coordination.suite';
import { httpGroup, httpPlan } from './http.suite';
import { lockGroup } from './lock.suite';
import { nearCacheGroup, nearCacheNotes } from './near-cache.suite';
import { rateLimitMultiGroup } from './rate-limit-multi.suite';
import { rateLimitGroup } from './rate-limit.suite';
import { redisBenchmarkGroup } from './redis-benchmark.suite';
import { streamsGroup } from './streams.suite';
import type { Suite } from './suite-context';

/** Every suite, in report order. */
export const SUITES: Suite[] = [
  { id: 'cache', create: cacheGroup },
  { id: 'near-cache', create: nearCacheGroup, notes: nearCacheNotes },
  { id: 'rate-limit', create: rateLimitGroup },
  { id: 'rate-limit-multi', create: rateLimitMultiGroup },
  { id: 'lock', create: lockGroup },
  { id: 'semaphore', create: semaphoreGroup },
  { id: 'idempotency', create: idempotencyGroup },
  { id: 'streams', create: streamsGroup },
  { id: 'redis-benchmark', create: redisBenchmarkGroup },
  { id: 'http', create: httpGroup, plan: httpPlan },
];

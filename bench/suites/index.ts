import { cacheGroup } from './cache.suite';
import { lockGroup } from './lock.suite';
import type { Suite } from './suite-context';

/** Every suite, in report order. */
export const SUITES: Suite[] = [
  { id: 'cache', create: cacheGroup },
  { id: 'lock', create: lockGroup },
];

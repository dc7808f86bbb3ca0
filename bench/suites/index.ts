import { lockGroup } from './lock.suite';
import type { Suite } from './suite-context';

/** Every suite, in report order. */
export const SUITES: Suite[] = [
  { id: 'lock', create: lockGroup },
];

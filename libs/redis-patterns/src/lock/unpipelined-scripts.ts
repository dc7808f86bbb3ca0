import type { BatchedScript } from '../core/scripts/batched-script';
import { ACQUIRE_LOCK_SCRIPT } from './scripts/acquire-lock.script';
import { EXTEND_LOCK_SCRIPT } from './scripts/extend-lock.script';
import { RELEASE_LOCK_SCRIPT } from './scripts/release-lock.script';

/** The scripts every lock operation sends; they skip ioredis auto-pipelining (see excludeFromAutoPipelining). */
export const LOCK_SCRIPTS: ReadonlyArray<BatchedScript<unknown>> = [ACQUIRE_LOCK_SCRIPT, EXTEND_LOCK_SCRIPT, RELEASE_LOCK_SCRIPT];

// Public surface of this pattern: explicit named exports (`export type` for interfaces).
export { LockService } from './lock.service';
export type { AcquireOptions, TryAcquireOptions } from '../lease/acquire-options';
export { Lock } from './lock';
export { ReadWriteLock } from './read-write-lock';
export { WithLock } from './with-lock.decorator';
export type { WithLockOptions } from './with-lock.decorator';
export type { LockOptions, RedlockOptions } from '../lease/lease.options';
export { LockNotAcquiredError } from '../lease/lock-not-acquired.error';
export type { LockFailureReason } from '../lease/lock-not-acquired.error';
export { LockLostError } from '../lease/lock-lost.error';

// Public surface of this pattern: explicit named exports (`export type` for interfaces).
export { LOCK_PROVIDERS } from './lock.providers';
export { LockService } from './lock.service';
export type { AcquireOptions, LockedWork, TryAcquireOptions } from './lock.service';
export { Lock } from './lock';
export { WithLock } from './with-lock.decorator';
export type { WithLockOptions } from './with-lock.decorator';
export { WithLockAdvisor } from './with-lock.advisor';
export { DEFAULT_FENCE_TTL_MS, resolveLockOptions } from './lock-options';
export type { LockOptions, RedlockOptions, ResolvedLockOptions } from './lock-options';
export { FENCE_SUFFIX, isFenceKey, LOCK_KEY_PATTERN, lockKeyPatternsWithoutTtl, lockKeys } from './lock-keys';
export type { LockKeys } from './lock-keys';
export { LockNotAcquiredError } from '../errors/lock-not-acquired.error';
export type { LockFailureReason } from '../errors/lock-not-acquired.error';
export { LockLostError } from '../errors/lock-lost.error';

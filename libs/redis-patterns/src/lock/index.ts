// Public surface of this pattern: explicit named exports (`export type` for interfaces).
export { LOCK_PROVIDERS } from './lock.providers';
export type { LockOptions } from './lock-options';

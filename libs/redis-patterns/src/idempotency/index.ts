// Public surface of this pattern: explicit named exports (`export type` for interfaces).
export { Idempotent } from './idempotent.decorator';
export type { IdempotentOptions } from './idempotent.decorator';
export { IdempotencyService } from './idempotency.service';
export type { IdempotencyExecuteOptions } from './execute-options';
export type { IdempotencyIdentity, IdempotencyOptions } from './idempotency.options';
export { IdempotencyNotClaimedError } from './idempotency-not-claimed.error';
export type { IdempotencyClaimFailureReason } from './idempotency-not-claimed.error';
export { IdempotencyKeyReusedError } from './idempotency-key-reused.error';
export { InvalidIdempotencyKeyError } from './invalid-idempotency-key.error';
export { MissingIdempotencyIdentityError } from './missing-idempotency-identity.error';

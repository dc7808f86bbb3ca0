// Public surface of this pattern: explicit named exports (`export type` for interfaces).
export { SemaphoreService } from './semaphore.service';
export { Permit } from './permit';
export { WithPermit } from './with-permit.decorator';
export type { WithPermitOptions } from './with-permit.decorator';
export { PermitNotAcquiredError } from './permit-not-acquired.error';
export type { PermitFailureReason } from './permit-not-acquired.error';
export { PermitLostError } from './permit-lost.error';

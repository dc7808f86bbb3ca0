import { Injectable } from '@nestjs/common';
import type { AdvisedMethod, MethodAdvice, MethodAdvisor } from '../core/advice/method-advice.interface';
import { checkKnownKeys, checkObject, checkOneOf, checkOptionalNumber, invalid } from '../core/options/option-checks';
import { LockNotAcquiredError } from '../lease/lock-not-acquired.error';
import { checkResource } from '../lease/lease-arguments';
import { LockRuntime } from './lock.runtime';
import { LockService } from './lock.service';
import type { WithLockOptions } from './with-lock.decorator';

const KNOWN_KEYS = ['resource', 'ttlMs', 'waitMs', 'onContention'] as const;

/** Turns `@WithLock` options into the advice around each decorated method; bad options fail startup. */
@Injectable()
export class WithLockAdvisor implements MethodAdvisor<WithLockOptions> {
  constructor(
    private readonly locks: LockService,
    private readonly runtime: LockRuntime,
  ) {}

  prepare(raw: WithLockOptions, method: AdvisedMethod): MethodAdvice {
    const path = `@WithLock(${method.className}.${method.methodName})`;
    const options = checkObject(raw, path) as unknown as WithLockOptions;
    checkKnownKeys(options as unknown as Record<string, unknown>, path, KNOWN_KEYS);
    const { resource } = options;
    if (typeof resource !== 'function' && (typeof resource !== 'string' || resource.length === 0)) {
      invalid(`${path}.resource`, 'a non-empty string or a function of the arguments returning one', resource);
    }
    const ttlMs = checkOptionalNumber(options.ttlMs, `${path}.ttlMs`, { integer: true, min: 1, unit: 'ms' });
    const waitMs = checkOptionalNumber(options.waitMs, `${path}.waitMs`, { integer: true, min: 0, unit: 'ms' });
    const skip =
      (options.onContention === undefined ? 'throw' : checkOneOf(options.onContention, `${path}.onContention`, ['throw', 'skip'])) ===
      'skip';
    const resourceOf = typeof resource === 'function' ? resource : () => resource;
    const methodName = `${method.className}.${method.methodName}`;

    // Callbacks rather than an async function: fewer promises on a path every locked call takes (see acquireLease).
    return (invocation, proceed) => {
      let name: string;
      try {
        name = checkResource(resourceOf(...invocation.args), 'resource');
      } catch (error) {
        return Promise.reject(error);
      }
      return this.locks.acquire(name, { ttlMs, waitMs }).then(
        (lock) => this.runtime.leases.runAdvised(lock, proceed, methodName),
        (error: unknown) => {
          // Only contention may skip: an unreachable Redis must never look like "someone else is doing it".
          if (skip && error instanceof LockNotAcquiredError && error.reason === 'contention') return undefined;
          throw error;
        },
      );
    };
  }
}

import { Injectable } from '@nestjs/common';
import type { AdvisedMethod, MethodAdvice, MethodAdvisor } from '../core/advice/method-advice.interface';
import { checkKnownKeys, checkNumber, checkObject, checkOptionalNumber, invalid } from '../core/options/option-checks';
import { checkResource } from '../lease/lease-arguments';
import { SemaphoreRuntime } from './semaphore.runtime';
import { SemaphoreService } from './semaphore.service';
import type { WithPermitOptions } from './with-permit.decorator';

const KNOWN_KEYS = ['resource', 'permits', 'ttlMs', 'waitMs'] as const;

/** Turns `@WithPermit` options into the advice around each decorated method; bad options fail startup. */
@Injectable()
export class WithPermitAdvisor implements MethodAdvisor<WithPermitOptions> {
  constructor(
    private readonly semaphores: SemaphoreService,
    private readonly runtime: SemaphoreRuntime,
  ) {}

  prepare(raw: WithPermitOptions, method: AdvisedMethod): MethodAdvice {
    const path = `@WithPermit(${method.className}.${method.methodName})`;
    const options = checkObject(raw, path) as unknown as WithPermitOptions;
    checkKnownKeys(options as unknown as Record<string, unknown>, path, KNOWN_KEYS);
    const { resource } = options;
    if (typeof resource !== 'function' && (typeof resource !== 'string' || resource.length === 0)) {
      invalid(`${path}.resource`, 'a non-empty string or a function of the arguments returning one', resource);
    }
    const permits = checkNumber(options.permits, `${path}.permits`, { integer: true, min: 1 });
    const ttlMs = checkOptionalNumber(options.ttlMs, `${path}.ttlMs`, { integer: true, min: 1, unit: 'ms' });
    const waitMs = checkOptionalNumber(options.waitMs, `${path}.waitMs`, { integer: true, min: 0, unit: 'ms' });
    const resourceOf = typeof resource === 'function' ? resource : () => resource;

    return async (invocation, proceed) => {
      const permit = await this.semaphores.acquire(checkResource(resourceOf(...invocation.args)), permits, { ttlMs, waitMs });
      return this.runtime.leases.runAdvised(permit, proceed);
    };
  }
}

import { InvalidArgumentError } from '../errors/invalid-argument.error';

/** Rejects a resource (what a lock, read-write lock or semaphore guards) that cannot name a lease, naming the argument. */
export function checkResource(resource: unknown, argument = 'resource'): string {
  if (typeof resource !== 'string' || resource.length === 0) {
    throw new InvalidArgumentError(
      argument,
      `expected a non-empty string, received ${typeof resource === 'string' ? 'an empty string' : typeof resource}`,
    );
  }
  return resource;
}

/** Rejects a TTL or wait that is not a positive (or, for waits, non-negative) integer number of ms. */
export function checkMs(value: unknown, argument: string, min: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    throw new InvalidArgumentError(argument, `expected an integer of at least ${min} (ms), received ${String(value)}`);
  }
  return value;
}

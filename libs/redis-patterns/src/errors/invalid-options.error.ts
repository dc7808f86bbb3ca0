/**
 * Thrown at startup when a {@link RedisPatternsModuleOptions} value, or a decorator's options, is invalid.
 * `option` is the dotted path of the offending value (e.g. `cache.defaultTtl`).
 */
export class InvalidOptionsError extends Error {
  constructor(
    readonly option: string,
    readonly expected: string,
    received: string,
  ) {
    super(`Invalid option "${option}": expected ${expected}, received ${received}.`);
  }

  override get name(): string {
    return this.constructor.name;
  }
}

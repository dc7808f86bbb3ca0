/**
 * Thrown when a handler call has no client identity for a `@RateLimit` without `key` (say a GraphQL context without
 * an HTTP request): the call is refused rather than counted in one budget shared by every client.
 */
export class RateLimitIdentityError extends Error {
  constructor(limiter: string, reason: string) {
    super(
      `@RateLimit("${limiter}") cannot identify the caller: ${reason}. Give the decorator a \`key\`, or set rateLimit.getTracker in the module options.`,
    );
  }

  override get name(): string {
    return this.constructor.name;
  }
}

import { Injectable } from '@nestjs/common';
import { RateLimit } from 'nestjs-redis-patterns';

/**
 * The per-username budget of login attempts. It lives on a provider method because the username is a business
 * identity, known only after the body is parsed: the method's argument is the key. A denied call throws
 * RateLimitDeniedError, which a decorated controller answers as 429 with Retry-After and RateLimit headers.
 */
@Injectable()
export class LoginAttempts {
  @RateLimit({ algorithm: 'sliding-log', limit: 5, windowMs: 60_000 }, { name: 'login-by-username', key: (username: string) => username })
  async record(_username: string): Promise<void> {}
}

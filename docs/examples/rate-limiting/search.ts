import { Controller, Get, Injectable, Module } from '@nestjs/common';
import { RateLimit, RateLimiterService, RedisPatternsModule, SkipRateLimit } from 'nestjs-redis-patterns';

@Controller('search')
@RateLimit({ algorithm: 'sliding-log', limit: 20, windowMs: 1_000 }) // class default, per client address
export class SearchController {
  @Get() search() {
    return [];
  }

  // Overrides the class default: 10 per second AND 1000 per day, checked together.
  @RateLimit([
    { algorithm: 'gcra', limit: 10, periodMs: 1_000 },
    { algorithm: 'fixed-window', limit: 1_000, windowMs: 86_400_000 },
  ])
  @Get('expensive')
  expensive() {
    return [];
  }

  @SkipRateLimit() @Get('health') health() {
    return 'ok';
  }
}

@Injectable()
export class SmsSender {
  /** Stands in for your SMS gateway: the messages sent. */
  readonly sent: { phone: string; text: string }[] = [];

  // On a provider: a denied call throws RateLimitDeniedError (carrying the decision).
  @RateLimit({ algorithm: 'token-bucket', capacity: 5, refillPerSecond: 0.1, key: (phone: string) => phone })
  async send(phone: string, text: string) {
    this.sent.push({ phone, text });
  }
}

@Injectable()
export class LoginService {
  constructor(private readonly limiter: RateLimiterService) {}

  async attempt(email: string) {
    // One budget per account however it is typed (see "Login limits" below), as the key parts ['login', account].
    const account = email.normalize('NFKC').trim().toLowerCase();
    const decision = await this.limiter.consume(
      ['login', account],
      { algorithm: 'sliding-log', limit: 5, windowMs: 60_000 },
      { failOpen: false },
    );
    if (!decision.allowed) throw new Error(`retry in ${decision.retryAfterMs} ms`);
  }
}

@Module({
  imports: [RedisPatternsModule.forRoot({ connection: process.env.REDIS_URL, rateLimit: { trustProxyHops: 1 } })],
  controllers: [SearchController],
  providers: [SmsSender, LoginService],
})
export class AppModule {}

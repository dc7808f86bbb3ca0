import { Controller, Get, Injectable } from '@nestjs/common';
import { RateLimit } from 'nestjs-redis-patterns';

@Controller('search')
@RateLimit({ algorithm: 'sliding-log', limit: 20, windowMs: 1_000 }) // per client address
export class SearchController {
  // Both policies in one script, one round trip, all or nothing.
  @RateLimit([
    { algorithm: 'gcra', limit: 10, periodMs: 1_000 },
    { algorithm: 'fixed-window', limit: 1_000, windowMs: 86_400_000 },
  ])
  @Get('expensive')
  expensive(): string[] {
    return [];
  }
}

@Injectable()
export class SmsSender {
  // On a provider: a denied call throws RateLimitDeniedError, which carries the decision.
  @RateLimit({ algorithm: 'token-bucket', capacity: 5, refillPerSecond: 0.1, key: (phone: string) => phone })
  async send(phone: string, text: string): Promise<void> {
    console.log(`to ${phone}: ${text}`);
  }
}

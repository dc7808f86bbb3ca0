import { Injectable, type NestMiddleware } from '@nestjs/common';

/** Counters the status page shows, fed from what the HTTP responses say. */
@Injectable()
export class TrafficMetrics implements NestMiddleware {
  cacheHits = 0;
  cacheMisses = 0;
  cacheStale = 0;
  rateLimited = 0;
  lockContention = 0;
  requests = 0;

  use(
    _request: unknown,
    response: { once(event: 'finish', cb: () => void): void; statusCode: number; getHeader(name: string): unknown },
    next: () => void,
  ): void {
    response.once('finish', () => {
      this.requests++;
      const cache = response.getHeader('x-cache');
      if (cache === 'HIT') this.cacheHits++;
      else if (cache === 'MISS') this.cacheMisses++;
      else if (cache === 'STALE') this.cacheStale++;
      if (response.statusCode === 429) this.rateLimited++;
      if (response.statusCode === 409) this.lockContention++;
    });
    next();
  }

  hitRatio(): number {
    const total = this.cacheHits + this.cacheMisses + this.cacheStale;
    return total === 0 ? 0 : (this.cacheHits + this.cacheStale) / total;
  }
}

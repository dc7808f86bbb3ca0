import { Controller, Get, Injectable, Module, Param } from '@nestjs/common';
import { Cacheable, CacheService, RedisPatternsModule } from 'nestjs-redis-patterns';

export interface Rate {
  currency: string;
  rate: number;
}

/** Stands in for a slow, sometimes failing upstream API. */
@Injectable()
export class RatesApi {
  calls = 0;
  down = false;
  delayMs = 0;

  async fetch(currency: string): Promise<Rate> {
    this.calls++;
    if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    if (this.down) throw new Error('rates API unavailable');
    return { currency, rate: 1 + this.calls / 100 };
  }
}

/** What the route's key and refresh functions read of the request. */
interface RatesRequest {
  params: { currency: string };
  headers: Record<string, string | string[] | undefined>;
}

/** Only an operator may make the API work on demand: any client could send the header. */
function isOperator(request: RatesRequest): boolean {
  const token = process.env.RATES_REFRESH_TOKEN;
  return token !== undefined && token.length > 0 && request.headers['x-refresh-token'] === token;
}

@Controller('rates')
export class RatesController {
  constructor(private readonly api: RatesApi) {}

  // Fresh for a minute; kept a day past that to answer when the API fails (X-Cache: STALE). A caller waits at most
  // 300 ms when an older rate is at hand, and 2 s when none is (then 504). An operator's header forces a refresh.
  // #region route
  @Get(':currency')
  @Cacheable({
    key: (request: RatesRequest) => `rate:${request.params.currency}`,
    ttlMs: 60_000,
    graceMs: 24 * 3_600_000,
    softTimeoutMs: 300,
    hardTimeoutMs: 2_000,
    forceFresh: (request: RatesRequest) => isOperator(request),
  })
  rate(@Param('currency') currency: string): Promise<Rate> {
    return this.api.fetch(currency);
  }
  // #endregion route
}

@Injectable()
export class RatesService {
  constructor(
    private readonly api: RatesApi,
    private readonly cache: CacheService,
  ) {}

  /** The same protections on a call: `wrapWithStatus` says whether the answer was fresh or from grace. */
  rate(currency: string) {
    return this.cache.wrapWithStatus(`rate:${currency}`, () => this.api.fetch(currency), {
      ttlMs: 60_000,
      graceMs: 24 * 3_600_000,
      hardTimeoutMs: 2_000,
    });
  }

  /** A refresh: skips the read, runs the loader once (across instances too) and replaces the entry. */
  refresh(currency: string) {
    return this.cache.wrap(`rate:${currency}`, () => this.api.fetch(currency), {
      ttlMs: 60_000,
      graceMs: 24 * 3_600_000,
      forceFresh: true,
    });
  }
}

@Module({
  imports: [
    RedisPatternsModule.forRoot({
      connection: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      keyPrefix: 'fx',
      // Module defaults for every cached call that names none; a failed load is retried per key every 30 s.
      cache: { defaultTtlMs: 60_000, graceMs: 3_600_000, graceRetryMs: 30_000 },
    }),
  ],
  controllers: [RatesController],
  providers: [RatesApi, RatesService],
})
export class AppModule {}

// The example of docs/rate-limiting.md "Policies per call, skip rules, blocks and refunds". `npm test` type-checks
// this file; test/integration/rate-limit/{per-call-policies,block-duration,refund-penalize}.integration-spec.ts run
// the same shapes against Redis (standalone and cluster) and the memory mode, and
// test/integration/rate-limit/rate-limit-hostile-input.integration-spec.ts runs LoginController itself.
import { Body, Controller, Get, Injectable, Module, Post } from '@nestjs/common';
import {
  clientAddress,
  RateLimit,
  RateLimitDeniedError,
  RateLimiterService,
  type RateLimitPolicy,
  RedisPatternsModule,
} from 'nestjs-redis-patterns';

// One reverse proxy in front of the app: the same number everywhere an address is read.
const TRUST_PROXY_HOPS = 1;

type Plan = 'free' | 'pro';
interface AuthenticatedRequest {
  user: { id: string; plan: Plan; role: string };
}

// Constant policy objects per plan: compiled once. Objects built per call are compiled once per distinct parameters.
const PLAN_LIMITS: Record<Plan, RateLimitPolicy[]> = {
  free: [{ algorithm: 'gcra', limit: 10, periodMs: 60_000 }],
  pro: [
    { algorithm: 'gcra', limit: 100, periodMs: 60_000 },
    { algorithm: 'fixed-window', limit: 50_000, windowMs: 86_400_000 },
  ],
};

@Controller('reports')
export class ReportsController {
  constructor(private readonly limiter: RateLimiterService) {}

  // The policy depends on the caller's plan; the budget is per user; admins are not limited.
  @RateLimit((request: AuthenticatedRequest) => PLAN_LIMITS[request.user.plan], {
    key: (request: AuthenticatedRequest) => request.user.id,
    skipIf: (request: AuthenticatedRequest) => request.user.role === 'admin',
  })
  @Get()
  list() {
    return [];
  }
}

// Per client address: twenty attempts a minute, whatever the account; an address that exceeds them is blocked for
// fifteen minutes. The block belongs on the address, which is the attacker's own: on an account key anyone could lock
// the account's owner out by failing five times.
const LOGIN_ADDRESS_POLICY: RateLimitPolicy = { algorithm: 'sliding-log', limit: 20, windowMs: 60_000, blockDurationMs: 900_000 };
// Per account: five attempts a minute, from every address together (a botnet gets no more than one client), and no
// block, so a victim is locked out at most for the window.
const LOGIN_ACCOUNT_POLICY: RateLimitPolicy = { algorithm: 'sliding-log', limit: 5, windowMs: 60_000 };

/**
 * The identity of an account as its owner may type it: compatibility forms folded (`ａ` is `a`), surrounding spaces
 * removed, lower-cased. Without it `Alice@x.com ` and `alice@x.com` would be two budgets.
 */
export function loginIdentity(email: string): string {
  return email.normalize('NFKC').trim().toLowerCase();
}

@Injectable()
export class PartnerApi {
  constructor(private readonly limiter: RateLimiterService) {}

  async fetchQuote(tenant: string): Promise<unknown> {
    const policy: RateLimitPolicy = { algorithm: 'token-bucket', capacity: 20, refillPerSecond: 2 };
    const decision = await this.limiter.consume(`partner:${tenant}`, policy);
    if (!decision.allowed) throw new Error(`retry in ${decision.retryAfterMs} ms`);
    try {
      return await this.callPartner(tenant);
    } catch (error) {
      // The partner failed, not the tenant: the call does not count against its budget.
      await this.limiter.refund(`partner:${tenant}`, policy);
      throw error;
    }
  }

  private async callPartner(tenant: string): Promise<unknown> {
    return { tenant };
  }
}

@Controller('login')
export class LoginController {
  constructor(private readonly limiter: RateLimiterService) {}

  // The decorator counts per client address (its default identity), before the body is looked at.
  @RateLimit({ ...LOGIN_ADDRESS_POLICY, name: 'login-address' })
  @Post()
  async login(@Body() body: { email: string; password: string }): Promise<{ ok: boolean }> {
    const account = ['login-account', loginIdentity(String(body.email))];
    const decision = await this.limiter.consume(account, LOGIN_ACCOUNT_POLICY);
    // A 429 with Retry-After, as the decorator's own denials.
    if (!decision.allowed) throw new RateLimitDeniedError('login-account', 'exceeded', { decision });
    const valid = body.password === 'correct horse';
    // A wrong password costs two attempts instead of one (never beyond the limit). A decorator's budget is reached
    // the same way, by its parts: `[limiter name, tracker]`.
    if (!valid) await this.limiter.penalize(account, LOGIN_ACCOUNT_POLICY);
    return { ok: valid };
  }
}

@Module({
  imports: [
    RedisPatternsModule.forRoot({
      connection: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      rateLimit: {
        trustProxyHops: TRUST_PROXY_HOPS,
        // A health checker next to the app (a sidecar, a probe command in the container) calls it on the loopback;
        // a client behind the proxy cannot claim that address, as it can any header (User-Agent, X-Forwarded-For
        // entries left of the proxy's). Routes only probes call are better marked @SkipRateLimit().
        skipIf: (context) => clientAddress(context.switchToHttp().getRequest(), TRUST_PROXY_HOPS) === '127.0.0.1',
      },
    }),
  ],
  controllers: [ReportsController, LoginController],
  providers: [PartnerApi],
})
export class AppModule {}

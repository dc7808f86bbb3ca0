// The example of docs/rate-limiting.md "Policies per call, skip rules, blocks and refunds". `npm test` type-checks
// this file; test/integration/rate-limit/{per-call-policies,block-duration,refund-penalize}.integration-spec.ts run
// the same shapes against Redis (standalone and cluster) and the memory mode.
import { Body, Controller, Get, Injectable, Module, Post } from '@nestjs/common';
import { RateLimit, RateLimiterService, type RateLimitPolicy, RedisPatternsModule } from 'nestjs-redis-patterns';

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

// Five attempts a minute; whoever exceeds them is blocked for fifteen minutes.
const LOGIN_POLICY: RateLimitPolicy = { algorithm: 'sliding-window', limit: 5, windowMs: 60_000, blockDurationMs: 900_000 };

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

  @RateLimit({ ...LOGIN_POLICY, key: (request: { body: { email: string } }) => request.body.email })
  @Post()
  async login(@Body() body: { email: string; password: string }): Promise<{ ok: boolean }> {
    const valid = body.password === 'correct horse';
    // A wrong password costs two attempts instead of one (never beyond the limit). The decorator's budget is
    // `<limiter name>:<key>`, the limiter name being `Class.method` unless `name` is given.
    if (!valid) await this.limiter.penalize(`LoginController.login:${body.email}`, LOGIN_POLICY);
    return { ok: valid };
  }
}

@Module({
  imports: [
    RedisPatternsModule.forRoot({
      connection: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      // Health checkers are never limited, whatever the route.
      rateLimit: {
        skipIf: (context) =>
          context.switchToHttp().getRequest<{ headers: Record<string, string> }>().headers['user-agent'] === 'kube-probe',
      },
    }),
  ],
  controllers: [ReportsController, LoginController],
  providers: [PartnerApi],
})
export class AppModule {}

// The example of docs/decorator-mechanism.md: one module configuration, and the decorators on a microservice
// controller, a WebSocket gateway and a GraphQL resolver. `npm test` type-checks this file; test/contexts/ runs the
// same shapes against real transports.
import { Controller, Module } from '@nestjs/common';
import { Args, Query, Resolver } from '@nestjs/graphql';
import { EventPattern, MessagePattern } from '@nestjs/microservices';
import { MessageBody, SubscribeMessage, WebSocketGateway } from '@nestjs/websockets';
import { Cacheable, RateLimit, RedisPatternsModule, WithLock } from 'nestjs-redis-patterns';

@Controller()
export class InvoicesRpcController {
  // One budget for the handler (an RPC caller has no address); denials reach the ClientProxy caller as
  // { status: 429, error: 'RateLimitDeniedError', message, retryAfterMs }.
  @MessagePattern('invoices.render')
  @RateLimit({ algorithm: 'gcra', limit: 50, periodMs: 1_000 })
  @Cacheable({ key: (invoice: { id: string }) => `invoice:${invoice.id}`, ttl: 300 })
  async render(invoice: { id: string }): Promise<string> {
    return `<html>invoice ${invoice.id}</html>`;
  }

  // Contention is { status: 409, error: 'LockNotAcquiredError', … } for the caller.
  @MessagePattern('invoices.send')
  @WithLock({ resource: (invoice: { id: string }) => `invoice:${invoice.id}`, ttlMs: 10_000 })
  async send(invoice: { id: string }): Promise<{ sent: string }> {
    return { sent: invoice.id };
  }

  // No reply to send: a denied event is dropped, with a warning at most every 10 s.
  @EventPattern('invoices.viewed')
  @RateLimit({ algorithm: 'fixed-window', limit: 1_000, windowMs: 1_000, key: (event: { tenant: string }) => event.tenant })
  async viewed(_event: { tenant: string }): Promise<void> {}
}

@WebSocketGateway()
export class ChatGateway {
  // Per connection; a denial is the client's `exception` event { status: 'error', code: 429, message, retryAfterMs }.
  @SubscribeMessage('chat.say')
  @RateLimit({ algorithm: 'token-bucket', capacity: 5, refillPerSecond: 1 })
  say(@MessageBody() text: string): { event: string; data: string } {
    return { event: 'chat.said', data: text };
  }
}

@Resolver()
export class PricesResolver {
  // Per client address of the HTTP request; a denial is a GraphQL error with extensions.code 'RATE_LIMITED'.
  @Query(() => Number)
  @RateLimit({ algorithm: 'sliding-log', limit: 20, windowMs: 1_000 })
  @Cacheable({ ttl: 30 })
  async price(@Args('sku') sku: string): Promise<number> {
    return sku.length * 100;
  }
}

@Module({
  imports: [
    RedisPatternsModule.forRoot({
      connection: process.env.REDIS_URL,
      rateLimit: {
        // Who a @RateLimit without `key` counts a handler call per, in every context (default: see the table).
        getTracker: (context) => String(context.switchToHttp().getRequest<{ user?: { id: string } }>().user?.id ?? 'anonymous'),
        // The limiter key from the tracker (default `<limiter name>:<tracker>`).
        generateKey: (_context, tracker, limiterName) => `${limiterName}:${tracker}`,
        wsIdentity: 'connection',
      },
    }),
  ],
  controllers: [InvoicesRpcController],
  providers: [ChatGateway, PricesResolver],
})
export class ExampleModule {}

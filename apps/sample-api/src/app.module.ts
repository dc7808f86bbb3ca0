// First: registers the OpenTelemetry SDK before anything else is imported or constructed (see the file).
import './telemetry/meter-provider';
import { type MiddlewareConsumer, Module, type NestModule } from '@nestjs/common';
import { RedisPatternsModule } from 'nestjs-redis-patterns';
import { AuthController } from './auth/auth.controller';
import { LoginAttempts } from './auth/login-attempts';
import { UserRepository } from './auth/user.repository';
import { CartRepository } from './carts/cart.repository';
import { CartsController, CartsWriter } from './carts/carts.controller';
import { CatalogService } from './catalog/catalog.service';
import { ProductRepository } from './catalog/product.repository';
import { ProductsController } from './catalog/products.controller';
import { EventsController } from './events/events.controller';
import { NotificationsHub } from './events/notifications.hub';
import { VisitorStatsConsumer } from './events/visitor-stats.consumer';
import { HealthController } from './health/health.controller';
import { OrderRepository } from './orders/order.repository';
import { OrdersController } from './orders/orders.controller';
import { OrdersService } from './orders/orders.service';
import { ShippingPartner } from './orders/shipping-partner';
import { LeaderboardSnapshotJob } from './scores/leaderboard-snapshot.job';
import { ScoresController } from './scores/scores.controller';
import { StatsController } from './stats/stats.controller';
import { RequestCounter } from './status/request-counter';
import { StatusController } from './status/status.controller';
import { StatusHistory } from './status/status-history';
import { TrafficGenerator } from './status/traffic-generator';
import { MetricsCollector } from './telemetry/metrics-collector';
import { MetricsController } from './telemetry/metrics.controller';

@Module({
  imports: [
    RedisPatternsModule.forRootAsync({
      useFactory: () => ({
        connection: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
        keyPrefix: process.env.REDIS_KEY_PREFIX ?? 'sample',
        // The library's default deadline (500 ms) unless the environment sets another.
        ...(process.env.REDIS_COMMAND_TIMEOUT_MS ? { commandTimeoutMs: Number(process.env.REDIS_COMMAND_TIMEOUT_MS) } : {}),
        cache: { defaultTtl: 60 },
        rateLimit: { failOpen: true },
        lock: { defaultTtlMs: 5000 },
        sessions: { defaultTtlMs: 1_800_000 },
        leaderboard: { defaultTtlMs: 30 * 86_400_000 },
        writeBehind: { delayMs: 200, batchSize: 500 },
      }),
    }),
  ],
  controllers: [
    HealthController,
    ProductsController,
    CartsController,
    AuthController,
    OrdersController,
    ScoresController,
    EventsController,
    StatsController,
    StatusController,
    MetricsController,
  ],
  providers: [
    ProductRepository,
    CatalogService,
    CartRepository,
    CartsWriter,
    UserRepository,
    LoginAttempts,
    OrderRepository,
    OrdersService,
    ShippingPartner,
    LeaderboardSnapshotJob,
    NotificationsHub,
    VisitorStatsConsumer,
    RequestCounter,
    MetricsCollector,
    StatusHistory,
    TrafficGenerator,
  ],
})
export class AppModule implements NestModule {
  constructor(private readonly requests: RequestCounter) {}

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply((req: unknown, res: never, next: () => void) => this.requests.use(req, res, next)).forRoutes('*path');
  }
}

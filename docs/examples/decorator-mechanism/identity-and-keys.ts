import { Module } from '@nestjs/common';
import { clientAddress, RedisPatternsModule } from 'nestjs-redis-patterns';

@Module({
  imports: [
    RedisPatternsModule.forRoot({
      connection: process.env.REDIS_URL,
      rateLimit: {
        // Who a @RateLimit without `key` counts a handler call per (default: see the table).
        // A caller without a user counts under its own address, never in one shared 'anonymous' budget.
        getTracker: (context) => {
          const request = context.switchToHttp().getRequest();
          return request.user?.id ?? clientAddress(request);
        },
        // The limiter key, as one key part (default: the two parts [limiter name, tracker], escaped separately).
        generateKey: (context, tracker, limiterName) => JSON.stringify([limiterName, tracker]),
        wsIdentity: 'address', // the default; 'connection' gives every WebSocket connection a fresh budget
      },
    }),
  ],
})
export class AppModule {}

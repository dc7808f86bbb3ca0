import { Module } from '@nestjs/common';
import { RedisPatternsModule } from 'nestjs-redis-patterns';

@Module({
  imports: [
    RedisPatternsModule.forRoot({
      connection: 'redis://redis-a:6379',
      connections: { a: 'redis://redis-a:6379', b: 'redis://redis-b:6379', c: 'redis://redis-c:6379' },
      lock: { redlock: { connections: ['a', 'b', 'c'], nodeTimeoutMs: 100 } },
    }),
  ],
})
export class AppModule {}

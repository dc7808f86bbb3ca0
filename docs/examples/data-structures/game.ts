import { Controller, Get, Module, Param, Post } from '@nestjs/common';
import { RedisPatternsModule } from 'nestjs-redis-patterns';
import { CappedList, Leaderboard, SessionStore, UniqueCounter } from 'nestjs-redis-patterns/structures';

@Controller()
class GameController {
  constructor(
    private readonly sessions: SessionStore,
    private readonly board: Leaderboard,
    private readonly visitors: UniqueCounter,
    private readonly feed: CappedList,
  ) {}

  @Post('login/:user')
  async login(@Param('user') user: string) {
    const sid = await this.sessions.create({ user }, { ttlMs: 1_800_000, maxLifetimeMs: 43_200_000 });
    await this.visitors.add('visitors:2026-01-05', user);
    return { sid };
  }

  @Post('score/:sid/:points')
  async score(@Param('sid') sid: string, @Param('points') points: string) {
    const session = await this.sessions.get<{ user: string }>(sid); // throws if Redis is down: fail closed
    if (!session) return { error: 'logged out' };
    await this.sessions.touch(sid); // sliding expiry, capped by maxLifetimeMs
    await this.board.incr('arena', session.user, Number(points), { period: 'day' });
    await this.feed.push(`user:${session.user}`, { points: Number(points), at: Date.now() }, { maxLength: 50 });
    return { rank: await this.board.rank('arena', session.user, { period: 'day' }) };
  }

  @Get('podium')
  podium() {
    return this.board.top('arena', 3, { period: 'week' });
  }
}

@Module({
  imports: [
    RedisPatternsModule.forRoot({
      connection: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      sessions: { defaultTtlMs: 1_800_000 },
      leaderboard: { maxLength: 10_000 },
    }),
  ],
  controllers: [GameController],
})
export class AppModule {}

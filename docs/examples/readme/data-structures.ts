import { Injectable } from '@nestjs/common';
import { CappedList, Leaderboard, SessionStore, UniqueCounter } from 'nestjs-redis-patterns/structures';

@Injectable()
export class Activity {
  constructor(
    private readonly sessions: SessionStore,
    private readonly board: Leaderboard,
    private readonly visitors: UniqueCounter,
    private readonly feed: CappedList,
  ) {}

  async login(user: string): Promise<string> {
    const sid = await this.sessions.create({ user }, { ttlMs: 1_800_000, maxLifetimeMs: 43_200_000 });
    await this.sessions.update(sid, { theme: 'dark' }); // field-level: concurrent updates of other fields survive
    await this.board.incr('arena', user, 10, { period: 'day' });
    await this.visitors.add(`visitors:${new Date().toISOString().slice(0, 10)}`, user); // HyperLogLog
    await this.feed.push(`user:${user}`, { event: 'login' }, { maxLength: 50 }); // LPUSH + LTRIM + PEXPIRE, one step
    return sid;
  }

  weeklyTop(): Promise<unknown> {
    return this.board.top('arena', 10, { period: 'week' }); // union of the week's daily boards
  }
}

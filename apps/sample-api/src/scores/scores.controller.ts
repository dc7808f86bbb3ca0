import { BadRequestException, Body, Controller, Get, Param, Post, Query } from '@nestjs/common';
import { Leaderboard, type LeaderboardEntry } from 'nestjs-redis-patterns/structures';

export const BOARD = 'players';

@Controller()
export class ScoresController {
  constructor(private readonly leaderboard: Leaderboard) {}

  /** Adds points to the all-time board and to today's board (kept a week for the weekly union). */
  @Post('scores/:player')
  async addScore(
    @Param('player') player: string,
    @Body() body: { points?: unknown },
  ): Promise<{ player: string; score: number; rank: number | null }> {
    const points = body?.points ?? 1;
    if (typeof points !== 'number' || !Number.isFinite(points) || Math.abs(points) > 1_000_000) {
      throw new BadRequestException('points must be a finite number of at most 1,000,000');
    }
    if (player.length === 0 || player.length > 64) throw new BadRequestException('player must be 1–64 characters');
    const [score] = await Promise.all([
      this.leaderboard.incr(BOARD, player, points),
      this.leaderboard.incr(BOARD, player, points, { period: 'day' }),
    ]);
    return { player, score, rank: await this.leaderboard.rank(BOARD, player) };
  }

  /** `?period=all|day|week` (default all), `?limit=` (default 10, at most 100). Rank 1 is the highest score. */
  @Get('leaderboard')
  async top(@Query('period') period = 'all', @Query('limit') limit = '10'): Promise<LeaderboardEntry[]> {
    if (period !== 'all' && period !== 'day' && period !== 'week') throw new BadRequestException('period must be all, day or week');
    const n = Number(limit);
    if (!Number.isInteger(n) || n < 1 || n > 100) throw new BadRequestException('limit must be an integer from 1 to 100');
    return this.leaderboard.top(BOARD, n, { period });
  }
}

import { BadRequestException, Body, Controller, Get, Headers, HttpCode, Post, UnauthorizedException } from '@nestjs/common';
import { RateLimit } from 'nestjs-redis-patterns';
import { SessionStore } from 'nestjs-redis-patterns/structures';
import { LoginAttempts } from './login-attempts';
import { UserRepository } from './user.repository';

interface LoginBody {
  username?: unknown;
  password?: unknown;
}

const SESSION_TTL_MS = 30 * 60_000;

@Controller()
export class AuthController {
  constructor(
    private readonly users: UserRepository,
    private readonly sessions: SessionStore,
    private readonly attempts: LoginAttempts,
  ) {}

  /**
   * Two budgets: 20 attempts a minute per client address (the guard, before the body is even read), and 5 a minute
   * per username (LoginAttempts), so spreading guesses of one password over many addresses does not help.
   */
  @Post('auth/login')
  @HttpCode(200)
  @RateLimit({ algorithm: 'sliding-log', limit: 20, windowMs: 60_000 }, { name: 'login-by-address' })
  async login(@Body() body: LoginBody): Promise<{ sessionId: string; expiresIn: number }> {
    if (typeof body?.username !== 'string' || typeof body.password !== 'string') {
      throw new BadRequestException('username and password are required strings');
    }
    await this.attempts.record(body.username.toLowerCase().slice(0, 64));
    const user = await this.users.verify(body.username.toLowerCase(), body.password);
    if (!user) throw new UnauthorizedException('invalid username or password');
    const sessionId = await this.sessions.create(
      { username: user.username, displayName: user.displayName, loginAt: Date.now() },
      { ttlMs: SESSION_TTL_MS },
    );
    // expiresIn in seconds, as OAuth-style clients expect.
    return { sessionId, expiresIn: SESSION_TTL_MS / 1000 };
  }

  /** Reads the session named by `Authorization: Bearer <sessionId>` and slides its expiry. */
  @Get('me')
  async me(@Headers('authorization') authorization: string | undefined): Promise<Record<string, unknown>> {
    const sessionId = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
    if (!sessionId) throw new UnauthorizedException('send Authorization: Bearer <sessionId> from POST /auth/login');
    const session = await this.sessions.get(sessionId);
    if (!session) throw new UnauthorizedException('session expired or unknown');
    await this.sessions.touch(sessionId);
    return session;
  }
}

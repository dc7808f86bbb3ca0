import { Test } from '@nestjs/testing';
import { Redis } from 'ioredis';
import { RedisPatternsModule, type RedisPatternsModuleOptions, RedisRefusedError } from 'nestjs-redis-patterns';
import { RedisPatternsHealthIndicator } from 'nestjs-redis-patterns/health';
import { freeLoopbackPort, uniquePrefix, waitFor } from '../../support/redis-env';
import { type AclUser, createAclUser } from './acl-user';

/** Compiles and initialises the module; resolves with the app context, or rejects with the startup error. */
async function start(options: RedisPatternsModuleOptions) {
  const moduleRef = await Test.createTestingModule({ imports: [RedisPatternsModule.forRoot(options)] }).compile();
  return moduleRef.init();
}

/** Connections of `user` open on the standalone server (a failed startup must not leave any behind). */
async function connectionsOf(admin: Redis, user: string): Promise<number> {
  const list = String(await admin.call('CLIENT', 'LIST'));
  return list.split('\n').filter((line) => line.includes(` user=${user} `)).length;
}

describe('The startup check of the connections (standalone)', () => {
  const users: AclUser[] = [];
  let admin: Redis;
  const quiet = { log() {}, warn() {}, error() {} };

  beforeAll(() => {
    admin = new Redis(process.env.REDIS_URL_STANDALONE!);
  });
  afterAll(async () => {
    for (const user of users) await user.remove();
    admin.disconnect();
  });

  const user = async (label: string, rules: string[]): Promise<AclUser> => {
    const created = await createAclUser(label, rules);
    users.push(created);
    return created;
  };

  it('fails startup with a RedisRefusedError naming NOPERM and EVALSHA for a user without scripting, and closes its connection', async () => {
    const noScript = await user('startup-noscript', ['~*', '&*', '+@all', '-@scripting']);
    const error = await start({ connection: noScript.url, keyPrefix: uniquePrefix('startup-noscript'), logger: quiet }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RedisRefusedError);
    expect((error as Error).message).toMatch(/Redis refused EVALSHA: NOPERM .*'evalsha' command/);
    expect((error as Error).message).toMatch(/startup check of connection "default"/);
    await waitFor(
      async () => (await connectionsOf(admin, noScript.name)) === 0,
      3000,
      () => 'the refused connection was left open',
    );
  });

  it('fails startup naming the key permission when the keyPrefix is outside the keys the user may access', async () => {
    const otherKeys = await user('startup-otherkeys', ['~other:*', '&*', '+@all']);
    const keyPrefix = uniquePrefix('app');
    const error = await start({ connection: otherKeys.url, keyPrefix, logger: quiet }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RedisRefusedError);
    expect((error as RedisRefusedError).reply).toBe('NOPERM');
    expect((error as Error).message).toMatch(/no permissions to access (a key|one of the keys)/i);
    expect((error as Error).message).toContain(`keyPrefix "${keyPrefix}"`);
  });

  it('checks an adopted client too, and leaves it open when startup fails', async () => {
    const noScript = await user('startup-adopted', ['~*', '&*', '+@all', '-@scripting']);
    const adopted = new Redis(noScript.url);
    try {
      await adopted.ping();
      const error = await start({ connection: { client: adopted }, keyPrefix: uniquePrefix('startup-adopted'), logger: quiet }).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(RedisRefusedError);
      expect((error as Error).message).toMatch(/NOPERM/);
      expect(await adopted.ping()).toBe('PONG');
    } finally {
      adopted.disconnect();
    }
  });

  it('starts with a user granted no more than the core ACL (scripts, TIME, the prefix keys) and writes nothing', async () => {
    const keyPrefix = uniquePrefix('startup-core');
    const core = await user('startup-core', [
      `~${keyPrefix}:*`,
      '-@all',
      '+ping',
      '+info',
      '+time',
      '+eval',
      '+evalsha',
      '+select',
      '+client|setname',
    ]);
    const app = await start({ connection: core.url, keyPrefix, logger: quiet });
    try {
      expect((await app.get(RedisPatternsHealthIndicator).check('redis')).redis.status).toBe('up');
      expect(await admin.keys(`${keyPrefix}:*`)).toEqual([]);
    } finally {
      await app.close();
    }
  });

  it('does not fail nor delay startup beyond the connect timeout when Redis is down (an outage is not a refusal)', async () => {
    const port = await freeLoopbackPort();
    const warnings: string[] = [];
    const errors: string[] = [];
    const started = Date.now();
    const app = await start({
      connection: `redis://127.0.0.1:${port}`,
      keyPrefix: uniquePrefix('startup-down'),
      connectTimeoutMs: 300,
      logger: { log() {}, warn: (m: string) => warnings.push(m), error: (m: string) => errors.push(m) },
    });
    try {
      expect(Date.now() - started).toBeLessThan(3000);
      expect(warnings.some((m) => m.includes('is not available at startup: connection refused'))).toBe(true);
      expect((await app.get(RedisPatternsHealthIndicator).check('redis', { timeoutMs: 300 })).redis.status).toBe('down');
    } finally {
      await app.close();
    }
  });

  it('has nothing to check in memory mode', async () => {
    const app = await start({ connection: 'memory://', keyPrefix: uniquePrefix('startup-memory'), logger: quiet });
    await app.close();
  });
});

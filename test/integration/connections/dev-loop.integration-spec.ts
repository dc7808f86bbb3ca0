import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { Injectable } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { ConnectionStartupError, RedisPatternsModule } from 'nestjs-redis-patterns';
import { OnRedisMessage } from 'nestjs-redis-patterns/messaging';
import { freeLoopbackPort, uniquePrefix } from '../../support/redis-env';
import { type AclUser, createAclUser } from './acl-user';

const root = join(__dirname, '../../..');
const quiet = { log() {}, warn() {}, error() {}, debug() {} };

@Injectable()
class Listener {
  @OnRedisMessage('dev-loop')
  onMessage(): void {}
}

// The child compiles and initialises the module as a Nest e2e test does, with the configuration in CHILD_OPTIONS, and
// reports how it ended. It never calls close(): it must exit on its own, which an open socket or timer would prevent.
const CHILD = `
const { Test } = require('@nestjs/testing');
const { RedisPatternsModule } = require('nestjs-redis-patterns');
const options = JSON.parse(process.env.CHILD_OPTIONS);
const quiet = { log() {}, warn() {}, error() {}, debug() {} };
Test.createTestingModule({ imports: [RedisPatternsModule.forRoot({ ...options, logger: quiet })] })
  .compile()
  .then((moduleRef) => moduleRef.init())
  .then(
    () => process.stdout.write('started\\n'),
    (error) => process.stdout.write('failed: ' + error.name + '\\n'),
  );
`;

/** Runs the child; resolves with its output and whether it exited on its own within `boundMs`. */
function runChild(options: object, boundMs: number): Promise<{ stdout: string; exitedOnItsOwn: boolean; ms: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      ['-r', './scripts/register-ts.js', '-e', CHILD],
      { cwd: root, env: { ...process.env, CHILD_OPTIONS: JSON.stringify(options) }, timeout: boundMs, killSignal: 'SIGKILL' },
      (_error, stdout) => resolve({ stdout: String(stdout), exitedOnItsOwn: child.signalCode === null, ms: Date.now() - started }),
    );
  });
}

describe('The dev loop without a reachable Redis', () => {
  it("compile() and init() of a module with a subscriber finish well within jest's 5 s default", async () => {
    const url = `redis://127.0.0.1:${await freeLoopbackPort()}`;
    const started = Date.now();
    const moduleRef = await Test.createTestingModule({
      imports: [RedisPatternsModule.forRoot({ connection: url, keyPrefix: uniquePrefix('devloop'), logger: quiet })],
      providers: [Listener],
    }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    try {
      expect(Date.now() - started).toBeLessThan(1500);
    } finally {
      await app.close();
    }
  });

  it("with connectionStartup: 'wait', fails startup after connectTimeoutMs naming the connection and the refusal", async () => {
    const url = `redis://127.0.0.1:${await freeLoopbackPort()}`;
    const started = Date.now();
    const error = await Test.createTestingModule({
      imports: [RedisPatternsModule.forRoot({ connection: url, connectionStartup: 'wait', connectTimeoutMs: 600, logger: quiet })],
    })
      .compile()
      .catch((e: unknown) => e);
    expect(Date.now() - started).toBeGreaterThanOrEqual(550);
    expect(error).toBeInstanceOf(ConnectionStartupError);
    expect((error as Error).message).toBe(
      `Redis connection "default" (${url}) is not ready after 600 ms, and connectionStartup is 'wait': connection refused by ${url}. ` +
        `Check that Redis is running at ${url} and listens on that port.`,
    );
  });
});

describe('A failed startup leaves nothing open (the process exits on its own)', () => {
  let noScript: AclUser;

  beforeAll(async () => {
    noScript = await createAclUser('devloop-noscript', ['~*', '&*', '+@all', '-@scripting']);
  });
  afterAll(async () => {
    await noScript.remove();
  });

  const failing: Array<[string, () => object, string]> = [
    ['invalid options', () => ({ connection: 'redis://127.0.0.1:6379', commandTimeoutMs: -1 }), 'InvalidOptionsError'],
    ['a wrong password', () => ({ connection: noScript.url.replace(/:[^:@/]+@/, ':wrong@') }), 'ConnectionStartupError'],
    ['an unknown host', () => ({ connection: 'redis://redis-patterns-test.invalid:6379' }), 'ConnectionStartupError'],
    ['a refused startup check', () => ({ connection: noScript.url }), 'RedisRefusedError'],
  ];

  it.each(failing)(
    '%s',
    async (_label, options, errorName) => {
      const { stdout, exitedOnItsOwn, ms } = await runChild(options(), 15_000);
      expect(stdout.trim()).toBe(`failed: ${errorName}`);
      expect(exitedOnItsOwn).toBe(true);
      expect(ms).toBeLessThan(15_000);
    },
    30_000,
  );

  it("connectionStartup: 'wait' not ready in time", async () => {
    const options = { connection: `redis://127.0.0.1:${await freeLoopbackPort()}`, connectionStartup: 'wait', connectTimeoutMs: 300 };
    const { stdout, exitedOnItsOwn } = await runChild(options, 15_000);
    expect(stdout.trim()).toBe('failed: ConnectionStartupError');
    expect(exitedOnItsOwn).toBe(true);
  }, 30_000);
});

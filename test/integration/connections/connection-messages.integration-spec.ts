import type { INestApplicationContext } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { ConnectionStartupError, InvalidOptionsError, RedisPatternsModule, type RedisPatternsModuleOptions } from 'nestjs-redis-patterns';
import { freeLoopbackPort, privateServer, type RedisServerProcess, uniquePrefix, waitFor } from '../../support/redis-env';
import { type AclUser, createAclUser } from './acl-user';

type Level = 'log' | 'warn' | 'error' | 'debug';

/** A logger that keeps every line with its level. */
function recorder() {
  const lines: Array<{ level: Level; message: string }> = [];
  const at = (level: Level) => (message: unknown) => lines.push({ level, message: String(message) });
  const logger = { log: at('log'), warn: at('warn'), error: at('error'), debug: at('debug'), verbose: at('debug') };
  const visible = () => lines.filter((line) => line.level !== 'debug');
  return { logger, lines, visible };
}

async function start(options: RedisPatternsModuleOptions): Promise<INestApplicationContext> {
  const moduleRef = await Test.createTestingModule({ imports: [RedisPatternsModule.forRoot(options)] }).compile();
  return moduleRef.init();
}

/** Client option names the user never sets in these tests: no line may mention one. */
const CLIENT_OPTION_NAMES = /maxRetriesPerRequest|enableOfflineQueue|retryStrategy|socketTimeout|reconnectOnError|ioredis/;

function expectLibraryWording(text: string, password: string): void {
  expect(text).not.toMatch(CLIENT_OPTION_NAMES);
  expect(text).not.toContain(password);
}

describe('Connection messages at startup', () => {
  let user: AclUser;
  let password: string;
  let endpoint: string;

  beforeAll(async () => {
    user = await createAclUser('conn-msg', ['~*', '&*', '+@all']);
    password = new URL(user.url).password;
    endpoint = `redis://${new URL(user.url).host}`;
  });
  afterAll(async () => {
    await user.remove();
  });

  const withPassword = (secret: string): string => {
    const url = new URL(user.url);
    url.password = secret;
    return url.toString();
  };

  it("fails startup fast on a wrong password, naming the connection and endpoint, in the doctor's words, without the password", async () => {
    const wrong = `wrong-${password}`;
    const { logger, visible } = recorder();
    const started = Date.now();
    const error = await start({ connection: withPassword(wrong), keyPrefix: uniquePrefix('wrongpass'), logger }).catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(error).toBeInstanceOf(ConnectionStartupError);
    const message = (error as Error).message;
    expect(message).toBe(
      `Redis connection "default" (${endpoint}) cannot be used: authentication failed (WRONGPASS): ${endpoint} is up but rejected the credentials. ` +
        'Check the user name and password of the connection (the URL, or its username and password options). ' +
        "Startup stops here, since retrying cannot fix this; set connectionStartup: 'retry' to start anyway and keep retrying.",
    );
    expect((error as ConnectionStartupError).reason).toBe('wrong-credentials');
    expectLibraryWording(message, wrong);
    expect(visible()).toEqual([]);
  });

  it('fails startup fast on a host name that does not resolve', async () => {
    const { logger } = recorder();
    const error = await start({
      connection: 'redis://redis-patterns-test.invalid:6379',
      keyPrefix: uniquePrefix('unknownhost'),
      logger,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionStartupError);
    expect((error as Error).message).toBe(
      'Redis connection "default" (redis://redis-patterns-test.invalid:6379) cannot be used: unknown host: "redis-patterns-test.invalid" does not resolve (DNS). ' +
        'Check the host name of the connection, and that this machine can resolve it. ' +
        "Startup stops here, since retrying cannot fix this; set connectionStartup: 'retry' to start anyway and keep retrying.",
    );
  });

  it("with connectionStartup: 'retry', starts on a wrong password, logs one error line, and one at the same level once the password works", async () => {
    const { logger, visible } = recorder();
    const wrong = `later-${password}`;
    const app = await start({ connection: withPassword(wrong), keyPrefix: uniquePrefix('retry'), connectionStartup: 'retry', logger });
    try {
      // Several reconnect attempts fail meanwhile; none adds a line.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(visible()).toEqual([
        {
          level: 'error',
          message:
            `Redis connection "default" (${endpoint}) is not available at startup: authentication failed (WRONGPASS): ${endpoint} is up but rejected the credentials. ` +
            'The application starts anyway: until it is back, patterns apply their outage policies; it reconnects in the background. ' +
            'Check the user name and password of the connection (the URL, or its username and password options).',
        },
      ]);
      await user.change([`>${wrong}`]);
      await waitFor(
        () => visible().length === 2,
        5000,
        () => `the recovery line (${JSON.stringify(visible())})`,
      );
      expect(visible()[1].level).toBe('error');
      expect(visible()[1].message).toMatch(/^Redis connection "default" is back after \d+\.\d s\.$/);
      for (const line of visible()) expectLibraryWording(line.message, wrong);
    } finally {
      await app.close();
    }
  });

  it('rejects an unknown connectionStartup value, naming the option', async () => {
    const error = await start({ connection: user.url, connectionStartup: 'sometimes' as never }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidOptionsError);
    expect((error as InvalidOptionsError).option).toBe('connectionStartup');
    expect((error as Error).message).toBe(
      "Invalid option \"connectionStartup\": expected one of 'check', 'wait', 'retry', received \"sometimes\".",
    );
  });
});

describe('Connection messages during an outage', () => {
  let server: RedisServerProcess;

  beforeEach(async () => {
    server = await privateServer();
  });
  afterEach(async () => {
    server.resume();
    await server.stop();
  });

  it('a frozen server: one warning naming what failed and what to check, no client internals, one when it is back', async () => {
    const { logger, visible } = recorder();
    const app = await start({ connection: server.url, keyPrefix: uniquePrefix('frozen'), commandTimeoutMs: 200, logger });
    try {
      server.freeze();
      await waitFor(
        () => visible().length > 0,
        5000,
        () => 'the down line',
      );
      // Reconnect attempts against the frozen server go on for a while; none adds a line.
      await new Promise((resolve) => setTimeout(resolve, 2000));
      expect(visible()).toEqual([
        {
          level: 'warn',
          message:
            `Redis connection "default" (${server.url}) is down: ${server.url} stopped answering (no reply within commandTimeoutMs, 200 ms). ` +
            'Until it is back, patterns apply their outage policies; it reconnects in the background. ' +
            'Check whether the server is frozen or busy (a long command, a fork for persistence: SLOWLOG GET, INFO persistence) and the network to it.',
        },
      ]);
      server.resume();
      await waitFor(
        () => visible().length === 2,
        5000,
        () => 'the recovery line',
      );
      expect(visible()[1]).toEqual({
        level: 'warn',
        message: expect.stringMatching(/^Redis connection "default" is back after \d+\.\d s\.$/),
      });
      for (const line of visible()) expect(line.message).not.toMatch(CLIENT_OPTION_NAMES);
    } finally {
      await app.close();
    }
  });

  it('a server that stops: one warning over many refused attempts, one when it is back', async () => {
    const { logger, visible } = recorder();
    const app = await start({ connection: server.url, keyPrefix: uniquePrefix('stopped'), logger });
    try {
      await server.stop();
      await new Promise((resolve) => setTimeout(resolve, 2500));
      expect(visible()).toEqual([
        {
          level: 'warn',
          message:
            `Redis connection "default" (${server.url}) is down: connection refused by ${server.url}. ` +
            'Until it is back, patterns apply their outage policies; it reconnects in the background. ' +
            `Check that Redis is running at ${server.url} and listens on that port.`,
        },
      ]);
      await server.restart();
      await waitFor(
        () => visible().length === 2,
        5000,
        () => 'the recovery line',
      );
      expect(visible()[1]).toEqual({
        level: 'warn',
        message: expect.stringMatching(/^Redis connection "default" is back after \d+\.\d s\.$/),
      });
    } finally {
      await app.close();
    }
  });
});

describe('Connection messages of an unreachable server at startup', () => {
  it('logs one warning saying the application starts anyway, and does not wait for the server', async () => {
    const { logger, visible } = recorder();
    const url = `redis://127.0.0.1:${await freeLoopbackPort()}`;
    const started = Date.now();
    const app = await start({ connection: url, keyPrefix: uniquePrefix('absent'), logger });
    try {
      expect(Date.now() - started).toBeLessThan(1500);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(visible()).toEqual([
        {
          level: 'warn',
          message:
            `Redis connection "default" (${url}) is not available at startup: connection refused by ${url}. ` +
            'The application starts anyway: until it is back, patterns apply their outage policies; it reconnects in the background. ' +
            `Check that Redis is running at ${url} and listens on that port.`,
        },
      ]);
    } finally {
      await app.close();
    }
  });
});

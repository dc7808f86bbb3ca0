import { spawn } from 'node:child_process';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { Test } from '@nestjs/testing';
import { Cluster, Redis } from 'ioredis';
import { CacheService, RedisConnections, RedisPatternsModule } from 'nestjs-redis-patterns';
import { clearKeys, startTestRedis, useTestRedis } from 'nestjs-redis-patterns/testing';
import { privateServer, waitFor } from '../../support/redis-env';

const root = join(__dirname, '../../..');

/** The raw reply of one inline command sent without authenticating. */
function anonymousReply(port: number, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host: '127.0.0.1', port }, () => socket.write(`${command}\r\n`));
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString());
    });
    socket.once('error', reject);
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('startTestRedis', () => {
  it('starts a real redis-server on a free loopback port, and stop() ends it', async () => {
    const redis = await startTestRedis();
    const client = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    try {
      expect(redis.url).toBe(`redis://127.0.0.1:${redis.port}`);
      await expect(client.ping()).resolves.toBe('PONG');
      // No persistence: nothing is written to disk.
      await expect(client.config('GET', 'save')).resolves.toEqual(['save', '']);
    } finally {
      client.disconnect();
      await redis.stop();
    }
    await expect(accepts(redis.port)).resolves.toBe(false);
  });

  it('requires the password it was given, which the URL carries', async () => {
    const redis = await startTestRedis({ password: 'p@ss word' });
    const authenticated = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    try {
      await expect(anonymousReply(redis.port, 'PING')).resolves.toMatch(/^-NOAUTH/);
      await expect(authenticated.ping()).resolves.toBe('PONG');
    } finally {
      authenticated.disconnect();
      await redis.stop();
    }
  });

  it('names what to install when redis-server is missing', async () => {
    await expect(startTestRedis({ binary: 'redis-server-that-does-not-exist' })).rejects.toThrow(
      /Install Redis \(Debian\/Ubuntu: "apt-get install redis-server"/,
    );
  });
});

describe('startTestRedis({ topology: "cluster" })', () => {
  it('starts three masters sharing every slot, which a cluster client uses (and CROSSSLOT applies)', async () => {
    const started = Date.now();
    const redis = await startTestRedis({ topology: 'cluster' });
    const elapsedMs = Date.now() - started;
    const cluster = new Cluster(redis.nodes.map((node) => ({ ...node })));
    try {
      expect(redis.nodes).toHaveLength(3);
      expect(redis.connection).toEqual({ cluster: { nodes: redis.nodes } });
      await Promise.all(Array.from({ length: 50 }, (_, i) => cluster.set(`k${i}`, String(i))));
      expect(await cluster.get('k7')).toBe('7');
      const masters = cluster.nodes('master');
      expect(masters).toHaveLength(3);
      expect((await Promise.all(masters.map((node) => node.dbsize()))).every((size) => size > 0)).toBe(true);
      await expect(cluster.call('MGET', 'k1', 'k2', 'k3', 'k4')).rejects.toThrow(/CROSSSLOT/);
      // Not a timing assertion on the code: a bound on how long a test waits for its cluster.
      expect(elapsedMs).toBeLessThan(15_000);
    } finally {
      cluster.disconnect();
      await redis.stop();
    }
    await expect(accepts(redis.port)).resolves.toBe(false);
  });

  it('refuses a password on a cluster, naming why', async () => {
    await expect(startTestRedis({ topology: 'cluster', password: 'x' })).rejects.toThrow(
      /password is supported on a standalone server only/,
    );
  });
});

describe('startTestRedis in a process that is killed', () => {
  it('takes its redis-server down with it, even on SIGKILL', async () => {
    const script =
      "require('nestjs-redis-patterns/testing').startTestRedis().then((r) => { console.log('PORT ' + r.port); setInterval(() => {}, 1000); });";
    const child = spawn(process.execPath, ['-r', './scripts/register-ts.js', '-e', script], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      await waitFor(
        () => /PORT \d+/.test(output),
        15_000,
        () => `the child to start its server; output: ${output}`,
      );
      const port = Number(/PORT (\d+)/.exec(output)![1]);
      await expect(accepts(port)).resolves.toBe(true);
      child.kill('SIGKILL');
      await waitFor(
        async () => !(await accepts(port)),
        5000,
        () => `redis-server on ${port} to stop after its parent was killed`,
      );
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});

describe('useTestRedis and clearKeys', () => {
  const redis = useTestRedis();

  it('gives the file a server from beforeAll on; clearKeys removes only the application’s keys', async () => {
    const moduleRef = await Test.createTestingModule({
      // Ready before the writes: the spec is about what clearKeys removes, not about startup under a loaded machine.
      imports: [RedisPatternsModule.forRoot({ connection: redis.connection, keyPrefix: 'mine', connectionStartup: 'wait' })],
    }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    const other = await Test.createTestingModule({
      imports: [RedisPatternsModule.forRoot({ connection: redis.url, keyPrefix: 'theirs', connectionStartup: 'wait' })],
    }).compile();
    const neighbour = other.createNestApplication({ logger: false });
    await neighbour.init();
    try {
      const cache = app.get(CacheService);
      await Promise.all(Array.from({ length: 1200 }, (_, i) => cache.set(`item:${i}`, { i }, { ttl: 60, tags: i % 2 ? ['odd'] : [] })));
      await neighbour.get(CacheService).set('kept', 'by the neighbour', { ttl: 60 });
      const removed = await clearKeys(app);
      expect(removed).toBeGreaterThanOrEqual(1200);
      await expect(cache.get('item:1')).resolves.toBeUndefined();
      await expect(neighbour.get(CacheService).get('kept')).resolves.toBe('by the neighbour');
      await expect(clearKeys(app)).resolves.toBe(0);
    } finally {
      await app.close();
      await neighbour.close();
    }
  });

  it('refuses to clear an application without a keyPrefix', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [RedisPatternsModule.forRoot({ connection: redis.url, keyPrefix: '' })],
    }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    try {
      await expect(clearKeys(app)).rejects.toThrow(/empty keyPrefix/);
    } finally {
      await app.close();
    }
  });

  it('waits for a connection that is reconnecting, and names it when it does not come back', async () => {
    const server = await privateServer();
    const moduleRef = await Test.createTestingModule({
      imports: [
        RedisPatternsModule.forRoot({ connection: server.url, keyPrefix: 'back', connectTimeoutMs: 3000, connectionStartup: 'wait' }),
      ],
    }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    const client = app.get(RedisConnections).get('default');
    try {
      await server.kill();
      await waitFor(
        async () => client.status !== 'ready',
        5000,
        () => 'the client to notice the server is gone',
      );
      await expect(clearKeys(app)).rejects.toThrow(/clearKeys: connection "default" is not ready after 3000 ms/);
      const clearing = clearKeys(app);
      await server.restart();
      await expect(clearing).resolves.toBe(0);
    } finally {
      await app.close();
      await server.stop();
    }
  }, 20_000);
});

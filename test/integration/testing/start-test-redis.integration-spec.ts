import { createConnection } from 'node:net';
import { Redis } from 'ioredis';
import { startTestRedis } from '../../../libs/redis-patterns/src/testing/start-test-redis';

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

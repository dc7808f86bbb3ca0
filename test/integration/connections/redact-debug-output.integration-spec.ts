import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Cluster, Redis } from 'ioredis';
import { clusterPorts, rawClient } from '../../support/redis-env';

const root = join(__dirname, '../../..');

// The child: connects the module (a) with an adopted client whose options hold the password, (b) with cluster seed
// nodes given as URLs that carry it, runs a command on each, and closes. With DEBUG=ioredis:*, ioredis prints every
// command it writes, AUTH and HELLO included.
const CHILD = `
const { Test } = require('@nestjs/testing');
const { Redis } = require('ioredis');
const { RedisPatternsModule } = require('nestjs-redis-patterns');
const { Leaderboard } = require('nestjs-redis-patterns/structures');

async function withModule(connection, run) {
  const moduleRef = await Test.createTestingModule({
    // A short readiness wait: the adopted client connects once the module is up.
    imports: [RedisPatternsModule.forRoot({ connection, keyPrefix: 'redact-' + process.pid, connectTimeoutMs: 300 })],
  }).compile();
  const app = moduleRef.createNestApplication();
  await app.init();
  try {
    await run(app);
  } finally {
    await app.close();
  }
}

(async () => {
  const { DBG_USER: user, DBG_PASSWORD: password, DBG_STANDALONE: standalone, DBG_CLUSTER_PORTS: ports } = process.env;
  const server = new URL(standalone);
  const adopted = new Redis({ host: server.hostname, port: Number(server.port), username: user, password, lazyConnect: true });
  await withModule({ client: adopted }, async (app) => {
    await adopted.connect();
    await app.get(Leaderboard).incr('adopted', 'm', 1);
  });
  adopted.disconnect();
  const nodes = ports.split(',').map((port) => 'redis://' + user + ':' + encodeURIComponent(password) + '@127.0.0.1:' + port);
  await withModule({ cluster: { nodes } }, async (app) => {
    await app.get(Leaderboard).incr('cluster', 'm', 1);
  });
  process.stdout.write('child done\\n');
})().catch((error) => {
  process.stdout.write('child failed: ' + error.name + '\\n');
  process.exitCode = 3;
});
`;

describe('DEBUG=ioredis:* output of the module', () => {
  const user = `dbg-${randomBytes(3).toString('hex')}`;
  const password = `dbg-Pw-${randomBytes(8).toString('hex')}`;
  let nodes: Redis[] = [];
  let admins: Array<Redis | Cluster> = [];

  beforeAll(async () => {
    const standalone = rawClient('standalone') as Redis;
    const cluster = rawClient('cluster') as Cluster;
    admins = [standalone, cluster];
    await cluster.ping();
    nodes = [standalone, ...cluster.nodes('all')];
    for (const node of nodes) await node.call('ACL', 'SETUSER', user, 'on', `>${password}`, '~*', '&*', '+@all');
  });

  afterAll(async () => {
    for (const node of nodes) await node.call('ACL', 'DELUSER', user).catch(() => undefined);
    for (const admin of admins) admin.disconnect();
  });

  it('never prints the password of an adopted client or of cluster node URLs', async () => {
    const env = {
      ...process.env,
      DEBUG: 'ioredis:*',
      DBG_USER: user,
      DBG_PASSWORD: password,
      DBG_STANDALONE: process.env.REDIS_URL_STANDALONE!,
      DBG_CLUSTER_PORTS: clusterPorts().join(','),
    };
    const { stdout, stderr } = await new Promise<{ stdout: string; stderr: string }>((resolve) => {
      const child = execFile(
        process.execPath,
        ['-r', './scripts/register-ts.js', '-e', CHILD],
        { cwd: root, env, timeout: 40_000, maxBuffer: 64 * 1024 * 1024 },
        (_error, out, err) => resolve({ stdout: String(out), stderr: String(err) }),
      );
      child.stdin?.end();
    });
    expect(stdout).toContain('child done');
    // The debug output ran and showed the authentication of this user: only the password is hidden.
    expect(stderr).toMatch(/ioredis:/);
    expect(stderr).toContain(user);
    expect(stderr).not.toContain(password);
    expect(stderr).not.toContain(encodeURIComponent(password));
  }, 60_000);
});

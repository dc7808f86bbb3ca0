import { execFile } from 'node:child_process';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { runDoctor } from 'nestjs-redis-patterns/doctor';

const root = join(__dirname, '../../..');

/**
 * A plain TCP listener standing in for a TLS Redis: it records every byte a client sends and answers nothing, so
 * a client speaking TLS stops at its ClientHello, and one that does not sends its AUTH in clear text.
 */
async function listen(): Promise<{ server: Server; url: (auth: string) => string; received: () => Buffer[] }> {
  const chunks: Buffer[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const close = server.close.bind(server);
  server.close = ((cb?: (err?: Error) => void) => {
    for (const socket of sockets) socket.destroy();
    return close(cb);
  }) as Server['close'];
  return { server, url: (auth) => `rediss://${auth}@127.0.0.1:${port}`, received: () => chunks };
}

function expectTlsOnly(chunks: Buffer[]): void {
  expect(chunks.length).toBeGreaterThan(0);
  // Every connection opened with a TLS record (handshake, 0x16), and nothing readable crossed the wire.
  expect(chunks[0][0]).toBe(0x16);
  const all = Buffer.concat(chunks).toString('latin1');
  expect(all).not.toContain('AUTH');
  expect(all).not.toContain('secret-pw');
  expect(all).not.toContain('PING');
}

describe('doctor on a rediss:// URL keeps TLS', () => {
  it.each<[string, { cluster?: boolean | 'seeds' }]>([
    ['standalone', {}],
    ['cluster', { cluster: true }],
    ['cluster with seed nodes', { cluster: 'seeds' }],
  ])(
    '%s: sends a TLS ClientHello, never AUTH or the password, and fails the connectivity check',
    async (_, extra) => {
      const listener = await listen();
      try {
        const url = listener.url('default:secret-pw');
        const port = Number(new URL(url).port);
        const cluster = extra.cluster === 'seeds' ? [{ host: '127.0.0.1', port }] : extra.cluster;
        const started = Date.now();
        const report = await runDoctor({ url, cluster, timeoutMs: 500 });
        expect(Date.now() - started).toBeLessThan(5_000);
        expect(report.exitCode).toBe(1);
        expect(report.checks[0]).toMatchObject({ name: 'connectivity', status: 'fail' });
        expect(JSON.stringify(report)).not.toContain('secret-pw');
        expectTlsOnly(listener.received());
      } finally {
        await new Promise((resolve) => listener.server.close(resolve));
      }
    },
    15_000,
  );

  it('the CLI with --cluster and REDISCLI_AUTH exits 1 without sending the password in clear text', async () => {
    const listener = await listen();
    try {
      const url = listener.url('default:secret-pw');
      const cli = [
        '-r',
        './scripts/register-ts.js',
        'libs/redis-patterns/src/cli.ts',
        'doctor',
        '--url',
        url,
        '--cluster',
        '--timeout-ms',
        '500',
      ];
      const outcome = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
        const child = execFile('node', cli, { cwd: root, timeout: 20_000, env: { ...process.env, REDISCLI_AUTH: '' } }, (error, stdout) =>
          resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout }),
        );
        child.stdin?.end();
      });
      expect(outcome.code).toBe(1);
      expect(outcome.stdout).toMatch(/connectivity/);
      expect(outcome.stdout).not.toContain('secret-pw');
      expectTlsOnly(listener.received());
    } finally {
      await new Promise((resolve) => listener.server.close(resolve));
    }
  }, 30_000);
});

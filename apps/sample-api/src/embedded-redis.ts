import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A throwaway local redis-server, started when REDIS_URL is unset so the sample API runs on a fresh machine.
 * It is a child process (not daemonized) on a free loopback port, without persistence, and is stopped after the
 * application has closed its connections.
 */
export class EmbeddedRedis {
  private constructor(
    private readonly child: ChildProcess,
    private readonly dir: string,
    readonly url: string,
  ) {}

  static async start(): Promise<EmbeddedRedis> {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'sample-api-redis-'));
    const child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--dir', dir],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('redis-server did not start within 10 s')), 10_000);
      child.once('error', (error) => {
        clearTimeout(timer);
        reject(new Error(`Could not start redis-server (${error.message}). Install it (apt-get install redis-server) or set REDIS_URL.`));
      });
      child.stdout?.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('Ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    child.stdout?.resume();
    return new EmbeddedRedis(child, dir, `redis://127.0.0.1:${port}`);
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = new Promise((resolve) => this.child.once('exit', resolve));
      this.child.kill('SIGTERM');
      await exited;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

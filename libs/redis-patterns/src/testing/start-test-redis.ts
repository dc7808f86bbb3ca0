import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A throwaway `redis-server` started by {@link startTestRedis}. */
export interface TestRedis {
  /** `redis://127.0.0.1:<port>` (with the password when one was set). */
  readonly url: string;
  readonly port: number;
  /** Stops the server (SIGTERM, then waits for it to exit) and removes its working directory. */
  stop(): Promise<void>;
}

/** Options of {@link startTestRedis}. */
export interface StartTestRedisOptions {
  /** A password the server requires (`requirepass`); the URL carries it. */
  readonly password?: string;
  /** How long to wait for the server to accept connections (default 10 000 ms). */
  readonly startTimeoutMs?: number;
  /** The `redis-server` executable (default: `redis-server` on the PATH). */
  readonly binary?: string;
}

/**
 * Starts a real `redis-server` for tests or local runs: a child process (never daemonized) on a free loopback port,
 * with no persistence, in a working directory of its own; resolves once it accepts connections (typically well
 * under a second). When `redis-server` is missing, rejects with an error naming what to install.
 *
 * @example
 * const redis = await startTestRedis();
 * const moduleRef = await Test.createTestingModule({ imports: [RedisPatternsModule.forRoot({ connection: redis.url })] }).compile();
 * // …
 * await redis.stop();
 */
export async function startTestRedis(options: StartTestRedisOptions = {}): Promise<TestRedis> {
  const port = await freeLoopbackPort();
  const dir = mkdtempSync(join(tmpdir(), 'nestjs-redis-patterns-'));
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--dir', dir];
  if (options.password !== undefined) args.push('--requirepass', options.password);
  const child = spawn(options.binary ?? 'redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    await ready(child, options.startTimeoutMs ?? 10_000);
  } catch (error) {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  child.stdout?.resume();
  child.stderr?.resume();
  const auth = options.password === undefined ? '' : `:${encodeURIComponent(options.password)}@`;
  return {
    url: `redis://${auth}127.0.0.1:${port}`,
    port,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function ready(child: ChildProcess, timeoutMs: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(
      () => reject(new Error(`redis-server did not accept connections within ${timeoutMs} ms. Its output:\n${output}`)),
      timeoutMs,
    );
    const fail = (error: Error) => {
      clearTimeout(timer);
      reject(error);
    };
    child.once('error', (error: NodeJS.ErrnoException) => {
      const install =
        error.code === 'ENOENT' ? ' Install Redis (Debian/Ubuntu: "apt-get install redis-server"; macOS: "brew install redis").' : '';
      fail(new Error(`Could not start redis-server: ${error.message}.${install}`));
    });
    const early = (code: number | null) =>
      fail(new Error(`redis-server exited (code ${code}) before accepting connections. Its output:\n${output}`));
    child.once('exit', early);
    const watch = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        child.off('exit', early);
        child.stdout?.off('data', watch);
        resolve();
      }
    };
    child.stdout?.on('data', watch);
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  });
}

function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

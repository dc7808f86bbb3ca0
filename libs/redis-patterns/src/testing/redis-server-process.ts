import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** One `redis-server` child process of a test. */
export interface RedisServerProcess {
  /** The loopback port it listens on. */
  readonly port: number;
  /** SIGTERM, wait for the exit, remove the working directory. */
  stop(): Promise<void>;
}

const INSTALL = 'Install Redis (Debian/Ubuntu: "apt-get install redis-server"; macOS: "brew install redis").';

let pdeathsig: boolean | undefined;

/**
 * Whether util-linux `setpriv --pdeathsig` is here: started through it, the server gets SIGTERM from the kernel when
 * the process that started it dies, even by SIGKILL (a killed jest worker), so no server outlives its test run.
 */
function hasPdeathsig(): boolean {
  pdeathsig ??=
    process.platform === 'linux' && spawnSync('setpriv', ['--help'], { stdio: 'pipe' }).stdout?.toString().includes('--pdeathsig') === true;
  return pdeathsig;
}

/**
 * Starts `redis-server` on `port` (loopback, no persistence, its own working directory) with `extraArgs`, and resolves
 * once it accepts connections. When the binary is missing, rejects with an error naming what to install.
 */
export async function startRedisServer(
  port: number,
  extraArgs: readonly string[],
  options: { binary?: string; startTimeoutMs?: number },
): Promise<RedisServerProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'nestjs-redis-patterns-'));
  const binary = options.binary ?? (process.env.REDIS_SERVER_BIN || 'redis-server');
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    '--daemonize',
    'no',
    '--dir',
    dir,
    ...extraArgs,
  ];
  const child = hasPdeathsig()
    ? spawn('setpriv', ['--pdeathsig', 'TERM', '--', binary, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    await ready(child, options.startTimeoutMs ?? 10_000, binary);
  } catch (error) {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  child.stdout?.resume();
  child.stderr?.resume();
  return {
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

function ready(child: ChildProcess, timeoutMs: number, binary: string): Promise<void> {
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
      fail(new Error(`Could not start redis-server: ${error.message}.${error.code === 'ENOENT' ? ` ${INSTALL}` : ''}`));
    });
    const early = (code: number | null) => {
      // setpriv exits 127 when it cannot find the binary it should run.
      if (code === 127) fail(new Error(`Could not start redis-server: "${binary}" was not found. ${INSTALL}`));
      else fail(new Error(`redis-server exited (code ${code}) before accepting connections. Its output:\n${output}`));
    };
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

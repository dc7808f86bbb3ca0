import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freeLoopbackPort } from './free-port';

const run = promisify(execFile);

const INSTALL = 'Install Redis (Debian/Ubuntu: "apt-get install redis-server"; macOS: "brew install redis").';
const LOG_FILE = 'server.log';
const STOP_GRACE_MS = 5000;

/** The server executable: another implementation (valkey-server, a Redis build) for a compatibility run. */
function serverBinary(): string {
  return process.env.REDIS_SERVER_BIN || 'redis-server';
}

function cliBinary(): string {
  return process.env.REDIS_CLI_BIN || 'redis-cli';
}

let pdeathsig: boolean | undefined;

/**
 * Whether util-linux `setpriv --pdeathsig` is here: started through it, the server gets SIGTERM from the kernel when
 * the process that started it dies, even by SIGKILL (a killed jest worker), so no server outlives its test run.
 * setpriv execs the server, so the child's pid is the server's and signals sent to it reach the server.
 */
function hasPdeathsig(): boolean {
  pdeathsig ??=
    process.platform === 'linux' && spawnSync('setpriv', ['--help'], { stdio: 'pipe' }).stdout?.toString().includes('--pdeathsig') === true;
  return pdeathsig;
}

/** How a server (or sentinel) is started, and started again on the same port after a kill or stop. */
export interface RedisServerOptions {
  /** Default: a free loopback port. */
  readonly port?: number;
  /** The working directory, the caller's to remove. Default: a temporary one that `stop()` removes. */
  readonly dir?: string;
  /** Appended to the launcher's own arguments, so they override them. */
  readonly extraArgs?: readonly string[];
  /** Default: `REDIS_SERVER_BIN`, else `redis-server` on the PATH. */
  readonly binary?: string;
  /** How long `start()` waits for the first answer (default 10 000 ms). */
  readonly startTimeoutMs?: number;
}

/** What a sentinel needs besides a port and a directory: its `sentinel monitor …` and other config lines. */
export interface RedisSentinelOptions extends RedisServerOptions {
  readonly config: readonly string[];
}

/**
 * One `redis-server` (or sentinel) child process on a loopback port, never daemonized, with the controls fault tests
 * need: stop, kill -9, SIGSTOP/SIGCONT, and a restart on the same port and directory.
 */
export class RedisServerProcess {
  private child?: ChildProcess;

  private constructor(
    readonly port: number,
    readonly dir: string,
    private readonly args: readonly string[],
    private readonly ownsDir: boolean,
    private readonly binary: string,
    private readonly startTimeoutMs: number,
    private readonly beforeStart?: (dir: string) => void,
  ) {}

  /** A data node (not started yet): no persistence, loopback only. */
  static dataNode(options: RedisServerOptions & { readonly port: number }): RedisServerProcess {
    const args = (dir: string) => [
      '--port',
      String(options.port),
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
    ];
    return RedisServerProcess.create(options, args);
  }

  /**
   * A sentinel (not started yet): the server binary with `--sentinel` on a config file in its directory, written on
   * the first start only, since Sentinel rewrites it with what it learned and a restarted sentinel should keep that.
   */
  static sentinel(options: RedisSentinelOptions & { readonly port: number }): RedisServerProcess {
    return RedisServerProcess.create(
      options,
      (dir) => [join(dir, 'sentinel.conf'), '--sentinel'],
      (dir) => {
        const file = join(dir, 'sentinel.conf');
        const config = [`port ${options.port}`, 'bind 127.0.0.1', 'protected-mode no', 'daemonize no', 'logfile ""', `dir ${dir}`];
        if (!existsSync(file)) writeFileSync(file, `${[...config, ...options.config].join('\n')}\n`);
      },
    );
  }

  private static create(
    options: RedisServerOptions & { readonly port: number },
    args: (dir: string) => string[],
    beforeStart?: (dir: string) => void,
  ): RedisServerProcess {
    const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'nestjs-redis-patterns-'));
    return new RedisServerProcess(
      options.port,
      dir,
      [...args(dir), ...(options.extraArgs ?? [])],
      options.dir === undefined,
      options.binary ?? serverBinary(),
      options.startTimeoutMs ?? 10_000,
      beforeStart,
    );
  }

  /** `redis://127.0.0.1:<port>`. */
  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** The server's pid (setpriv execs the server in its own process) while it runs or after it exited. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /**
   * Starts the process and resolves once it answers PING. When the binary is missing, rejects with an error naming
   * what to install; on any failure the process is killed (and a directory of its own removed) first.
   */
  async start(): Promise<this> {
    mkdirSync(this.dir, { recursive: true });
    this.beforeStart?.(this.dir);
    // Output goes to a file, not a pipe: a server whose pipe nobody drains (a busy test process) blocks on its log.
    const log = join(this.dir, LOG_FILE);
    const out = openSync(log, 'w');
    const stdio: ['ignore', number, number] = ['ignore', out, out];
    try {
      this.child = hasPdeathsig()
        ? spawn('setpriv', ['--pdeathsig', 'TERM', '--', this.binary, ...this.args], { cwd: this.dir, stdio })
        : spawn(this.binary, this.args, { cwd: this.dir, stdio });
    } finally {
      closeSync(out);
    }
    try {
      await this.answers(this.child, () => (existsSync(log) ? readFileSync(log, 'utf8') : ''));
    } catch (error) {
      await this.signalAndWait('SIGKILL');
      if (this.ownsDir) rmSync(this.dir, { recursive: true, force: true });
      throw error;
    }
    return this;
  }

  /** Starts the same server again on the same port and directory, after `kill()` or `stop()`. */
  restart(): Promise<this> {
    return this.start();
  }

  /** Runs redis-cli (`REDIS_CLI_BIN`) against this process; resolves its raw output, or `ERR <message>`. */
  async cli(...args: string[]): Promise<string> {
    try {
      const { stdout } = await run(cliBinary(), ['-h', '127.0.0.1', '-p', String(this.port), ...args], { timeout: 5000 });
      return stdout;
    } catch (error) {
      return `ERR ${(error as Error).message}`;
    }
  }

  /** SIGSTOP: the server stops answering but keeps its sockets open (a black hole). */
  freeze(): void {
    if (this.running(this.child)) this.child.kill('SIGSTOP');
  }

  /** SIGCONT after `freeze()`. */
  resume(): void {
    if (this.running(this.child)) this.child.kill('SIGCONT');
  }

  /** SIGKILL (a crash), waiting for the exit. */
  async kill(): Promise<void> {
    await this.signalAndWait('SIGKILL');
  }

  /**
   * SIGTERM (after a SIGCONT, as a frozen server would not act on it), SIGKILL if it has not exited 5 s later;
   * waits for the exit and removes a directory of its own.
   */
  async stop(): Promise<void> {
    this.resume();
    await this.signalAndWait('SIGTERM');
    if (this.ownsDir) rmSync(this.dir, { recursive: true, force: true });
  }

  private running(child: ChildProcess | undefined): child is ChildProcess {
    return child !== undefined && child.exitCode === null && child.signalCode === null;
  }

  private async signalAndWait(signal: NodeJS.Signals): Promise<void> {
    const child = this.child;
    // A child that never spawned (missing binary) has no pid and emits no exit.
    if (!this.running(child) || child.pid === undefined) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    await exited;
    clearTimeout(timer);
  }

  /**
   * Polls with PING rather than watching the log for "Ready to accept connections": a sentinel never logs it, and a
   * server given `--logfile` logs elsewhere. A reply of NOAUTH counts: the server answers, it wants a password.
   */
  private async answers(child: ChildProcess, output: () => string): Promise<void> {
    let failure: Error | undefined;
    const onError = (error: NodeJS.ErrnoException) => {
      failure = new Error(`Could not start ${this.binary}: ${error.message}.${error.code === 'ENOENT' ? ` ${INSTALL}` : ''}`);
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
      // setpriv exits 127 when it cannot find the binary it should run.
      failure =
        code === 127
          ? new Error(`Could not start redis-server: "${this.binary}" was not found. ${INSTALL}`)
          : new Error(
              `${this.binary} on port ${this.port} exited (${signal ?? `code ${code}`}) before answering. Its output:\n${output()}`,
            );
    };
    child.once('error', onError);
    child.once('exit', onExit);
    const deadline = Date.now() + this.startTimeoutMs;
    try {
      for (;;) {
        if (failure) throw failure;
        // A reply after the child exited came from another process on the port: the exit is the answer.
        if ((await answersPing(this.port)) && !failure) return;
        if (Date.now() > deadline) {
          throw new Error(`${this.binary} on port ${this.port} did not answer within ${this.startTimeoutMs} ms. Its output:\n${output()}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    } finally {
      child.off('error', onError);
      child.off('exit', onExit);
    }
  }
}

function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let reply = '';
    const done = (answered: boolean) => {
      socket.destroy();
      resolve(answered);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk: Buffer) => {
      reply += chunk.toString();
      if (reply.includes('\r\n')) done(/^(\+PONG|-NOAUTH)/.test(reply));
    });
    socket.once('error', () => done(false));
    socket.once('close', () => done(false));
  });
}

/** Starts a data node (see {@link RedisServerProcess.dataNode}) on `options.port` or a free loopback port. */
export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServerProcess> {
  const port = options.port ?? (await freeLoopbackPort());
  return RedisServerProcess.dataNode({ ...options, port }).start();
}

import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CLI_BIN, SERVER_BIN } from './server-binaries';

const run = promisify(execFile);

/** A redis-server (or sentinel) child process on a loopback port, with the fault controls tests need. */
export class RedisProcess {
  private child?: ChildProcess;

  constructor(
    readonly port: number,
    readonly dir: string,
    private readonly args: string[],
  ) {}

  /** Server arguments for a throwaway data node: no persistence, loopback only. */
  static dataNodeArgs(port: number, dir: string, extra: string[] = []): string[] {
    return [
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
      '--enable-debug-command',
      'local',
      ...extra,
    ];
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  async start(): Promise<this> {
    mkdirSync(this.dir, { recursive: true });
    const child = spawn(SERVER_BIN, this.args, { cwd: this.dir, stdio: ['ignore', 'ignore', 'pipe'] });
    this.child = child;
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const spawned = new Promise<void>((resolve, reject) => {
      child.once('error', reject);
      child.once('spawn', () => resolve());
    });
    await spawned;
    await waitFor(
      async () => (await this.cli('PING')).trim() === 'PONG',
      10_000,
      () => `redis-server on ${this.port} did not answer PING. ${stderr}`,
    );
    return this;
  }

  /** Runs redis-cli against this process and returns its raw output. */
  async cli(...args: string[]): Promise<string> {
    try {
      const { stdout } = await run(CLI_BIN, ['-h', '127.0.0.1', '-p', String(this.port), ...args], { timeout: 5000 });
      return stdout;
    } catch (error) {
      return `ERR ${(error as Error).message}`;
    }
  }

  /** SIGSTOP: the server stops answering but keeps its sockets open (a black hole). */
  freeze(): void {
    this.child?.kill('SIGSTOP');
  }

  resume(): void {
    this.child?.kill('SIGCONT');
  }

  /** SIGKILL, waiting for the exit. */
  async crash(): Promise<void> {
    await this.signalAndWait('SIGKILL');
  }

  /** SIGTERM (after a SIGCONT in case it is frozen), waiting for the exit. */
  async stop(): Promise<void> {
    this.child?.kill('SIGCONT');
    await this.signalAndWait('SIGTERM');
  }

  /** Starts the same server again on the same port (after crash or stop). */
  async restart(): Promise<this> {
    return this.start();
  }

  private async signalAndWait(signal: NodeJS.Signals): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }
}

/** Polls `check` every 25 ms until it is true, or throws after `timeoutMs`. */
export async function waitFor(
  check: () => Promise<boolean> | boolean,
  timeoutMs: number,
  message: () => string = () => 'condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for: ${message()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export function nodeDir(root: string, name: string): string {
  return join(root, name);
}

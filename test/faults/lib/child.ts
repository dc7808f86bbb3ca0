import { type ChildProcess, spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { now } from './measure';

export const REPO_ROOT = resolve(__dirname, '../../..');

/**
 * A TypeScript child process run through scripts/register-ts.js, speaking a line protocol on stdout (and taking
 * commands on stdin). All its output is kept, so secrets scenarios can grep it.
 */
export class TsChild {
  readonly lines: string[] = [];
  stdout = '';
  stderr = '';
  private readonly child: ChildProcess;
  private readonly listeners = new Set<(line: string) => void>();
  readonly exited: Promise<number | null>;

  /** When each line arrived (monotonic ms, like `now()`). */
  readonly lineTimes: number[] = [];

  /**
   * `options.netns` runs the child inside that network namespace: `ip netns exec` execs node in place, so the pid
   * is node's and signals reach it directly.
   */
  constructor(file: string, env: Record<string, string>, nodeArgs: string[] = [], options: { netns?: string } = {}) {
    const node = [process.execPath, ...nodeArgs, '-r', join(REPO_ROOT, 'scripts/register-ts.js'), join(REPO_ROOT, file)];
    const [command, ...args] = options.netns ? ['ip', 'netns', 'exec', options.netns, ...node] : node;
    this.child = spawn(command, args, {
      cwd: REPO_ROOT,
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stdout!.on('data', (chunk: Buffer) => (this.stdout += chunk.toString()));
    this.child.stderr!.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    createInterface({ input: this.child.stdout! }).on('line', (line) => {
      this.lines.push(line);
      this.lineTimes.push(now());
      for (const listener of this.listeners) listener(line);
    });
    this.exited = new Promise((done) => this.child.once('exit', (code) => done(code)));
  }

  get pid(): number {
    return this.child.pid!;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Resolves with the first line (already received or future) matching `pattern`. */
  waitForLine(pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray> {
    for (const line of this.lines) {
      const match = pattern.exec(line);
      if (match) return Promise.resolve(match);
    }
    return new Promise((resolvePromise, reject) => {
      const timer = setTimeout(() => {
        this.listeners.delete(listener);
        reject(
          new Error(`child ${this.pid} printed no line matching ${pattern} within ${timeoutMs} ms; stderr: ${this.stderr.slice(-2000)}`),
        );
      }, timeoutMs);
      const listener = (line: string): void => {
        const match = pattern.exec(line);
        if (!match) return;
        clearTimeout(timer);
        this.listeners.delete(listener);
        resolvePromise(match);
      };
      this.listeners.add(listener);
      void this.exited.then(() => {
        if (!this.listeners.has(listener)) return;
        clearTimeout(timer);
        this.listeners.delete(listener);
        reject(new Error(`child exited before printing ${pattern}; stderr: ${this.stderr.slice(-2000)}`));
      });
    });
  }

  /** Calls `listener` with every future line (for thousands of protocol lines, which waitForLine would rescan); returns the unsubscribe. */
  onLine(listener: (line: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  send(line: string): void {
    if (this.running) this.child.stdin!.write(`${line}\n`);
  }

  signal(signal: NodeJS.Signals): void {
    if (this.running) this.child.kill(signal);
  }

  /** SIGCONT (in case it is frozen) then SIGKILL, and waits for the exit. */
  async kill(): Promise<void> {
    if (!this.running) return;
    this.child.kill('SIGCONT');
    this.child.kill('SIGKILL');
    await this.exited;
  }
}

import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HttpAdapterName } from './http-adapter';

// Linux reports process times in /proc/<pid>/stat in clock ticks; 100 per second on every mainstream kernel config.
const TICK_US = 10_000;
// What an app printed after it started (Nest logs a failed request as an error), kept to show at stop.
const TAIL_CHARS = 4_000;
/** What serve.ts prints once a full collection asked for by SIGUSR2 is done. */
export const COLLECTED_LINE = 'COLLECTED';
// The app with every library takes 1.5–3 s of CPU to start, on a machine other work shares: generous.
const START_TIMEOUT_MS = 60_000;

/** Apps still running, killed if the benchmark process exits without stopping them (a crash past every teardown). */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** A benchmark Nest app in its own Node process (so the app and the load generator do not share a CPU loop). */
export class AppProcess {
  private child?: ChildProcess;
  private tail = '';
  private collected?: () => void;
  port = 0;

  constructor(
    readonly variant: string,
    readonly adapter: HttpAdapterName,
    private readonly redisUrl: string,
  ) {}

  get name(): string {
    return `${this.variant} (${this.adapter})`;
  }

  async start(): Promise<void> {
    const root = join(__dirname, '..', '..');
    const child = spawn(
      process.execPath,
      [
        '--expose-gc',
        '-r',
        join(root, 'scripts/register-ts.js'),
        join(root, 'bench/http/serve.ts'),
        this.variant,
        this.adapter,
        this.redisUrl,
      ],
      { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    this.child = child;
    running.add(child);
    child.once('exit', () => running.delete(child));
    let output = '';
    let started = false;
    const onData = (chunk: Buffer) => {
      if (started && this.collected && chunk.includes(COLLECTED_LINE)) {
        const done = this.collected;
        this.collected = undefined;
        done();
        return;
      }
      if (started) {
        this.tail = (this.tail + chunk.toString()).slice(-TAIL_CHARS);
        return;
      }
      output += chunk.toString();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    try {
      this.port = await new Promise<number>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`${this.name} app did not start in ${START_TIMEOUT_MS / 1000} s: ${output}`)),
          START_TIMEOUT_MS,
        );
        const onStart = () => {
          const match = /LISTENING (\d+)/.exec(output);
          if (!match) return;
          clearTimeout(timer);
          started = true;
          child.stdout!.off('data', onStart);
          child.off('exit', onExit);
          resolve(Number(match[1]));
        };
        const onExit = (code: number | null) => {
          clearTimeout(timer);
          reject(new Error(`${this.name} app exited with ${code}: ${output}`));
        };
        child.stdout!.on('data', onStart);
        child.once('exit', onExit);
      });
    } catch (error) {
      await this.stop();
      throw error;
    }
  }

  /**
   * Runs a full garbage collection in the app and resolves once it is done (SIGUSR2; serve.ts answers on stdout).
   * Called before each measured stretch, so that the old generation a route's requests leave behind is collected
   * outside the stretch of whichever route runs next: a full collection falling inside one 2 s window moved that
   * route's CPU per request by up to ±100 µs on Express. Each stretch still pays the young collections of its own
   * garbage.
   */
  collectGarbage(timeoutMs = 10_000): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return Promise.reject(new Error(`${this.name} app is not running`));
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.collected = undefined;
        reject(new Error(`${this.name} app did not collect garbage in ${timeoutMs / 1000} s`));
      }, timeoutMs);
      this.collected = () => {
        clearTimeout(timer);
        resolve();
      };
      child.kill('SIGUSR2');
    });
  }

  /**
   * User + system CPU time of the app process so far, in µs: the sum of its threads' run time in
   * /proc/<pid>/task/<tid>/schedstat (nanoseconds), or /proc/<pid>/stat (10 ms ticks) where schedstat is missing.
   * The tick figure is truncated at each reading, so a difference of two is off by up to 10 ms, 5 µs per request
   * over 2,000 requests; the nanosecond sum is not. Node's threads (main, libuv pool, V8 platform) live as long as the
   * process, so the per-thread sum loses no exited thread's time.
   */
  cpuUs(): number {
    const pid = this.child?.pid;
    if (pid === undefined) return Number.NaN;
    return existsSync(`/proc/${pid}/schedstat`) ? threadRunTimeUs(pid) : processTicksUs(pid);
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    if (this.tail.trim()) process.stderr.write(`  ${this.name} app printed:\n${this.tail}\n`);
    this.tail = '';
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  }
}

function threadRunTimeUs(pid: number): number {
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return Number.NaN; // the process is gone
  }
  let ns = 0;
  for (const tid of tids) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return ns / 1000;
}

function processTicksUs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_US; // utime, stime (fields 14 and 15)
  } catch {
    return Number.NaN;
  }
}

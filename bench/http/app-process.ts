import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// Linux reports process times in clock ticks; 100 per second on every mainstream kernel config.
const TICK_US = 10_000;

/** A benchmark Nest app in its own Node process (so the app and the load generator do not share a CPU loop). */
export class AppProcess {
  private child?: ChildProcess;
  port = 0;

  constructor(
    private readonly variant: string,
    private readonly redisUrl: string,
  ) {}

  async start(): Promise<void> {
    const root = join(__dirname, '..', '..');
    const child = spawn(
      process.execPath,
      ['-r', join(root, 'scripts/register-ts.js'), join(root, 'bench/http/serve.ts'), this.variant, this.redisUrl],
      {
        cwd: root,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    this.child = child;
    let output = '';
    this.port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${this.variant} app did not start in 30 s: ${output}`)), 30_000);
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        const match = /LISTENING (\d+)/.exec(output);
        if (match) {
          clearTimeout(timer);
          resolve(Number(match[1]));
        }
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`${this.variant} app exited with ${code}: ${output}`));
      });
    });
    child.removeAllListeners('exit');
  }

  /** User + system CPU time of the app process so far, in µs (from /proc/<pid>/stat). */
  cpuUs(): number {
    try {
      const stat = readFileSync(`/proc/${this.child!.pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return (Number(fields[11]) + Number(fields[12])) * TICK_US; // utime, stime (fields 14 and 15)
    } catch {
      return Number.NaN;
    }
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  }
}

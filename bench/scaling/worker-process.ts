import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import type { RunReport, RunRequest, ScalingOperation, WorkerMessage, WorkerSpec } from './worker-protocol';

const ROOT = join(__dirname, '..', '..');
// Several workers compile the library with swc and create a Nest context at the same time on a 2-core machine.
const READY_TIMEOUT_MS = 90_000;
// A run ends when its last in-flight call settles; past this the worker is stuck, not slow.
const RUN_GRACE_MS = 30_000;
const STOP_DEADLINE_MS = 5_000;
const OUTPUT_KEPT = 4_000;

/** One scaling worker, seen from the benchmark: starts it, asks it for runs, stops it by its PID. */
export class WorkerProcess {
  private child?: ChildProcess;
  private output = '';

  constructor(private readonly spec: WorkerSpec) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Spawns the worker and resolves once its application context is created and its keys are seeded. */
  async start(): Promise<void> {
    const child = spawn(
      process.execPath,
      ['-r', join(ROOT, 'scripts/register-ts.js'), join(ROOT, 'bench/scaling/scaling-worker.ts'), JSON.stringify(this.spec)],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] },
    );
    this.child = child;
    child.stdout!.on('data', (chunk: Buffer) => this.keep(chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      this.keep(text);
      // The closed loop reports its first failed call on stderr: shown, so a round with errors says why.
      for (const line of text.split('\n')) if (line.trim()) process.stderr.write(`  [scaling worker ${this.spec.index}] ${line}\n`);
    });
    await this.next('ready', READY_TIMEOUT_MS);
  }

  /** Runs `operation` in this worker for `durationMs` and returns its report. */
  run(operation: ScalingOperation, durationMs: number): Promise<RunReport> {
    const report = this.next('report', durationMs + RUN_GRACE_MS);
    const request: RunRequest = { type: 'run', operation, durationMs };
    try {
      this.child!.send(request);
    } catch (error) {
      report.catch(() => undefined);
      return Promise.reject(error as Error);
    }
    return report;
  }

  /** SIGTERM to the worker's PID, SIGKILL if it has not exited by the deadline; resolves once it has exited. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_DEADLINE_MS);
    await exited;
    clearTimeout(timer);
  }

  private keep(text: string): void {
    this.output = (this.output + text).slice(-OUTPUT_KEPT);
  }

  /** The next message of `type`; rejects on a `failed` message, an exit or the timeout. */
  private next<T extends WorkerMessage['type']>(type: T, timeoutMs: number): Promise<Extract<WorkerMessage, { type: T }>> {
    const child = this.child!;
    const name = `scaling worker ${this.spec.index} (pid ${child.pid})`;
    return new Promise((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        child.off('message', onMessage);
        child.off('exit', onExit);
        child.off('error', onError);
      };
      const onMessage = (message: WorkerMessage) => {
        if (message.type === type) {
          done();
          resolve(message as Extract<WorkerMessage, { type: T }>);
        } else if (message.type === 'failed') {
          done();
          reject(new Error(`${name} failed: ${message.message}`));
        }
      };
      const onExit = (code: number | null, signal: string | null) => {
        done();
        reject(new Error(`${name} exited (${signal ?? code}) while waiting for "${type}": ${this.output.trim()}`));
      };
      const onError = (error: Error) => {
        done();
        reject(new Error(`${name}: ${error.message}`));
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`${name} sent no "${type}" within ${timeoutMs} ms: ${this.output.trim()}`));
      }, timeoutMs);
      child.on('message', onMessage);
      child.once('exit', onExit);
      child.once('error', onError);
      if (child.exitCode !== null || child.signalCode !== null) onExit(child.exitCode, child.signalCode);
    });
  }
}

import type { RunResult } from '../lib/contender';
import { quantile } from '../lib/stats';
import { WorkerProcess } from './worker-process';
import type { RunReport, ScalingOperation, WorkerSpec } from './worker-protocol';

/** Worker processes started together, kept alive across rounds, and run together. */
export class WorkerPool {
  private constructor(private readonly workers: WorkerProcess[]) {}

  /** Starts one worker per spec, all at once; if any fails to start, stops every one of them and rethrows. */
  static async start(specs: readonly WorkerSpec[]): Promise<WorkerPool> {
    const workers = specs.map((spec) => new WorkerProcess(spec));
    const started = await Promise.allSettled(workers.map((worker) => worker.start()));
    const failure = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failure) {
      await Promise.all(workers.map((worker) => worker.stop()));
      throw failure.reason;
    }
    return new WorkerPool(workers);
  }

  get size(): number {
    return this.workers.length;
  }

  /**
   * Runs `operation` in the first `processes` workers at once for `durationMs`: the sum of their operations and
   * errors, their summed CPU as the client CPU, and latency quantiles over every process's calls.
   */
  async run(processes: number, operation: ScalingOperation, durationMs: number): Promise<RunResult> {
    if (processes > this.workers.length) throw new Error(`${processes} processes asked of a pool of ${this.workers.length}`);
    const reports = await Promise.all(this.workers.slice(0, processes).map((worker) => worker.run(operation, durationMs)));
    return combine(reports);
  }

  /** Stops every worker (SIGTERM, then SIGKILL after a deadline), waiting for each to exit. */
  async stop(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.stop()));
  }
}

function combine(reports: readonly RunReport[]): RunResult {
  const latenciesUs = reports.flatMap((r) => r.latenciesUs);
  const ms = (us: number) => us / 1000;
  return {
    ops: reports.reduce((sum, r) => sum + r.ops, 0),
    errors: reports.reduce((sum, r) => sum + r.errors, 0),
    // The processes start within about a millisecond of each other (one IPC message each) and run for the same
    // duration; the longest of their own elapsed times is the span all of them were measured over, so the summed
    // ops are divided by it rather than by each process's shorter span (which would overstate the rate).
    elapsedMs: Math.max(...reports.map((r) => r.elapsedMs)),
    clientCpuUs: reports.reduce((sum, r) => sum + r.cpuUs, 0),
    p50Ms: ms(quantile(latenciesUs, 0.5)),
    p99Ms: ms(quantile(latenciesUs, 0.99)),
    p999Ms: ms(quantile(latenciesUs, 0.999)),
  };
}

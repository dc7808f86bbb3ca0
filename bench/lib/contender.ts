/** One measured stretch of work: how many operations ran, and what the contender itself observed. */
export interface RunResult {
  ops: number;
  elapsedMs: number;
  /** Latency quantiles in ms, when the contender measures per-operation latency. */
  p50Ms?: number;
  p99Ms?: number;
  /** CPU (user + system, µs) of the process doing the client work, when it is not the runner's own. */
  clientCpuUs?: number;
  /** Failed operations (errors, non-2xx): must be 0 for a valid measurement. */
  errors: number;
}

/**
 * A contender: something measured side by side with others in the same group. `run` performs work for about
 * `durationMs` and reports it; the runner wraps it with server INFO deltas and (unless the contender reports its
 * own) the runner process's CPU usage.
 */
export interface Contender {
  /** Short unique id inside the group (used by ratios). */
  id: string;
  /** Display name. */
  label: string;
  /** Set when the contender cannot run here (e.g. a service not in the repository yet): reported, never faked. */
  unavailable?: string;
  setup?(): Promise<void>;
  /** Called before each measured run, outside the measurement (e.g. to fill a stream the run will drain). */
  prepare?(durationMs: number): Promise<void>;
  run(durationMs: number): Promise<RunResult>;
  /** One operation at concurrency 1, for counting commands and round trips per operation. */
  probe?(): Promise<unknown>;
  teardown?(): Promise<void>;
}

/** `numerator / denominator` of ops/s, computed inside each round, with an optional target from the issues. */
export interface RatioSpec {
  label: string;
  numerator: string;
  denominator: string;
  target?: number;
}

/** A set of contenders measured against each other, interleaved in rounds. */
export interface BenchGroup {
  id: string;
  title: string;
  /** What one operation is (e.g. "get on a hit", "HTTP request"), for the report. */
  unit: string;
  /** How the load was generated, for the report. */
  load: string;
  contenders: Contender[];
  ratios: RatioSpec[];
  /** Absolute floors from the issues, on a contender's median ops/s (e.g. streams ≥ 20k entries/s). */
  minimums?: { label: string; contender: string; opsPerSec: number }[];
  /** Whether to run the concurrency-1 probe (library level only). */
  probe?: boolean;
}

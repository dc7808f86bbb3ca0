/** One measured stretch of work: how many operations ran, and what the contender itself observed. */
export interface RunResult {
  /** Operations that completed successfully (failed ones are in `errors`, never here). */
  ops: number;
  elapsedMs: number;
  /** Latency quantiles in ms, when the contender measures per-operation latency. */
  p50Ms?: number;
  p99Ms?: number;
  p999Ms?: number;
  /** CPU (user + system, µs) of the process doing the client work, when it is not the runner's own. */
  clientCpuUs?: number;
  /**
   * Redis CPU (µs) of the run, when the contender measures it itself (e.g. over the nodes of a cluster); otherwise
   * the runner takes it from the private server's INFO delta.
   */
  redisCpuUs?: number;
  /** Failed operations (errors, non-2xx): a round with any is excluded from ratios and differences. */
  errors: number;
  /**
   * Arrivals of an open loop the contender did not serve on schedule (dropped at the in-flight bound, or unfinished
   * at the drain deadline): it fell behind the offered rate. Not a failure of the contender, but its latency then
   * describes only the calls it managed, so a round with any is excluded from ratios as well.
   */
  shortfall?: number;
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

/** A per-round figure a ratio or a difference can be taken of. */
export type RoundMetric = 'opsPerSec' | 'clientCpuUsPerOp' | 'redisCpuUsPerOp' | 'p50Ms' | 'p99Ms' | 'p999Ms';

/**
 * `numerator / denominator` of a metric (ops/s unless `metric` says otherwise), computed inside each round. When
 * `denominator` lists several contenders (a peer's plain and auto-pipelined rows), the ratio is taken against the
 * one with the higher median ops/s: the peer at its best. Rounds where either side had errors are left out.
 */
export interface RatioSpec {
  label: string;
  numerator: string;
  denominator: string | readonly string[];
  metric?: RoundMetric;
  /** Met when at least three quarters of the rounds reach it (throughput ratios). */
  target?: number;
  /** Met when at least three quarters of the rounds stay at or under it (cost ratios, e.g. Redis CPU per operation). */
  atMost?: number;
}

/**
 * `numerator - baseline` of a metric inside each round (e.g. app CPU µs per request over the bare route), with an
 * upper bound and, optionally, the peer whose added cost ours must stay below.
 */
export interface DifferenceSpec {
  label: string;
  numerator: string;
  baseline: string;
  metric: RoundMetric;
  /** Met when at least three quarters of the rounds stay at or under it. */
  atMost?: number;
  /** Also met only when ours costs less than this peer in at least three quarters of the rounds. */
  peer?: string;
}

/** A set of contenders measured against each other, interleaved in rounds. */
export interface BenchGroup {
  id: string;
  title: string;
  /** What one operation is (e.g. "get on a hit", "HTTP request"), for the report. */
  unit: string;
  /** How the load was generated, for the report. */
  load: string;
  /** Concurrent callers, for a group measured at several concurrencies (the sweep). */
  concurrency?: number;
  contenders: Contender[];
  ratios: RatioSpec[];
  differences?: DifferenceSpec[];
  /** Absolute floors from the issues, on a contender's ops/s in three quarters of the rounds (e.g. streams ≥ 20k entries/s). */
  minimums?: { label: string; contender: string; opsPerSec: number }[];
  /** Whether to run the concurrency-1 probe (library level only). */
  probe?: boolean;
}

// What a scaling worker process and the benchmark say to each other over the IPC channel.

/** The operations a worker can run in a closed loop. */
export type ScalingOperation = 'rate-limit' | 'cache-hit';

/** A Redis Cluster given by seed nodes, in the shape `RedisPatternsModule.forRoot({ connection })` takes. */
export interface ClusterConnection {
  cluster: { nodes: { host: string; port: number }[] };
}

/** How a worker is set up, passed as JSON in its first command-line argument. */
export interface WorkerSpec {
  /** Position in its pool: keeps each process's keys apart, as separate application instances would. */
  index: number;
  /** The standalone server's URL, or the cluster's seed nodes. */
  connection: string | ClusterConnection;
  keyPrefix: string;
  /** Concurrent callers of the closed loop in this process. */
  concurrency: number;
  /** The operations this worker prepares (a cache hit needs its keys seeded before the first run). */
  operations: ScalingOperation[];
}

/** Benchmark → worker: run `operation` for `durationMs`, starting now. */
export interface RunRequest {
  type: 'run';
  operation: ScalingOperation;
  durationMs: number;
}

/** Worker → benchmark: what one run did in this process. */
export interface RunReport {
  type: 'report';
  /** Successful operations. */
  ops: number;
  errors: number;
  elapsedMs: number;
  /** User + system CPU of this process during the run, µs. */
  cpuUs: number;
  /** Latency of every successful operation, µs (merged across processes by the benchmark for its quantiles). */
  latenciesUs: number[];
}

/** Worker → benchmark. */
export type WorkerMessage = { type: 'ready' } | { type: 'failed'; message: string } | RunReport;

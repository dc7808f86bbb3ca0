import autocannon from 'autocannon';

/** A request autocannon sends: one path, or a path per request (a resource per request for `@WithLock`). */
export type RequestPath = string | (() => string);

/** What the benchmark reads from an autocannon run (bench/types/peers.d.ts types only part of it). */
export interface LoadResult {
  /** Responses with a 2xx status. */
  ok: number;
  non2xx: number;
  /** Connection errors and timeouts (autocannon counts a timeout in both `errors` and `timeouts`). */
  errors: number;
  durationMs: number;
  p50Ms: number;
  p99Ms: number;
  p999Ms: number;
}

interface AutocannonRunOptions {
  url: string;
  connections: number;
  duration: number;
  sampleInt: number;
  overallRate?: number;
  ignoreCoordinatedOmission?: boolean;
  requests: { method: string; path?: string; setupRequest?: (request: object) => object }[];
}

interface AutocannonRunResult {
  '2xx': number;
  non2xx: number;
  errors: number;
  duration: number;
  latency: { p50: number; p99: number; p99_9: number };
}

const run = autocannon as unknown as (options: AutocannonRunOptions) => Promise<AutocannonRunResult>;

/**
 * autocannon acts on its stop timer only at its next sample tick, once a second by default: a 0.25 s run then
 * lasted a second, and a run's end fell on the very moment its connections' per-second quotas renewed. Sampling
 * every 100 ms ends a run within 100 ms of its duration.
 */
const SAMPLE_MS = 100;

/**
 * Sends GET requests to `127.0.0.1:port` from `connections` keep-alive connections for `durationS` seconds: as fast
 * as the app answers, or, with `overallRate`, that many requests per second in all. autocannon holds a rate as a
 * quota per connection and second: each connection sends its share back to back from the start of each second, then
 * waits for the next one. The app therefore sees a burst of up to `connections` requests in flight each second, then
 * idles; a rate below what a route sustains completes every burst within its second.
 */
export async function sendLoad(
  port: number,
  path: RequestPath,
  options: { connections: number; durationS: number; overallRate?: number },
): Promise<LoadResult> {
  const result = await run({
    url: `http://127.0.0.1:${port}`,
    connections: options.connections,
    duration: options.durationS,
    sampleInt: SAMPLE_MS,
    // autocannon "corrects" rate-limited latencies against an expected interval of ceil(1 / rate) ms, i.e. 1 ms,
    // which does not describe how it paces (bursts, above): its raw latencies are the honest ones.
    ...(options.overallRate === undefined ? {} : { overallRate: options.overallRate, ignoreCoordinatedOmission: true }),
    requests: [
      typeof path === 'string'
        ? { method: 'GET', path }
        : { method: 'GET', setupRequest: (request: object) => ({ ...request, path: path() }) },
    ],
  });
  return {
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    durationMs: result.duration * 1000,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    p999Ms: result.latency.p99_9,
  };
}

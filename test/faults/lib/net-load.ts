// HTTP load on application instances reached at their own addresses (network namespaces), paced per instance, each
// answer kept with the instance's own handling time (X-Server-Ms), X-Cache and the rate limiter's decision source.
import { Agent, request } from 'node:http';
import { now, pause } from './measure';

export interface NetSample {
  /** Index of the instance that answered. */
  readonly node: number;
  /** What was asked (`cached`, `open`, `closed`, `locked`), whatever the path's key. */
  readonly route: string;
  /** 0 when the connection failed or the client deadline passed. */
  readonly status: number;
  /** As seen by the load generator. */
  readonly ms: number;
  /** As measured inside the instance (NaN when the header is missing). */
  readonly serverMs: number;
  readonly xCache?: string;
  /** The limiter decision's source (`redis`, `fail-open`, `unavailable`), from the body. */
  readonly source?: string;
  readonly startedAt: number;
  readonly error?: string;
}

export interface NetTarget {
  readonly node: number;
  readonly host: string;
  readonly port: number;
  /** The n-th request to this instance. */
  next(n: number): { route: string; path: string };
}

const agent = new Agent({ keepAlive: true, maxSockets: 64 });

function get(target: NetTarget, route: string, path: string, timeoutMs: number): Promise<NetSample> {
  const startedAt = now();
  const failed = (error: Error): NetSample => ({
    node: target.node,
    route,
    status: 0,
    ms: now() - startedAt,
    serverMs: Number.NaN,
    startedAt,
    error: error.message,
  });
  return new Promise((resolve) => {
    const req = request({ host: target.host, port: target.port, path, agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('error', (error) => resolve(failed(error)));
      res.on('end', () => {
        let source: string | undefined;
        if (route === 'open' || route === 'closed') {
          try {
            source = (JSON.parse(body) as { source?: string }).source;
          } catch {
            source = undefined;
          }
        }
        resolve({
          node: target.node,
          route,
          status: res.statusCode ?? 0,
          ms: now() - startedAt,
          serverMs: Number(res.headers['x-server-ms'] ?? Number.NaN),
          xCache: res.headers['x-cache'] as string | undefined,
          source,
          startedAt,
        });
      });
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error('client timeout')));
    req.on('error', (error) => resolve(failed(error)));
    req.end();
  });
}

/** A paced load: `rate` requests per second to each target, until stopped; every answer lands in `samples`. */
export function startNetLoad(targets: readonly NetTarget[], rate: number): { samples: NetSample[]; stop(): Promise<void> } {
  const samples: NetSample[] = [];
  const pending = new Set<Promise<void>>();
  let running = true;
  const loops = targets.map(async (target) => {
    const start = now();
    for (let n = 0; running;) {
      const { route, path } = target.next(n);
      const p = get(target, route, path, 5000).then((sample) => void samples.push(sample));
      pending.add(p);
      void p.finally(() => pending.delete(p));
      n++;
      await pause(Math.max(0, start + (n * 1000) / rate - now()));
    }
  });
  return {
    samples,
    stop: async () => {
      running = false;
      await Promise.all(loops);
      await Promise.all(pending);
    },
  };
}

/** One request outside any load (probes). */
export const probe = (target: NetTarget, route: string, path: string): Promise<NetSample> => get(target, route, path, 5000);

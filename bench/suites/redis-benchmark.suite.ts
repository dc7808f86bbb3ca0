import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import Redis from 'ioredis';
import type { BenchGroup, Contender, RunResult } from '../lib/contender';
import { CACHE_TTL_S, CACHED_VALUE } from './payload';
import type { SuiteContext } from './suite-context';

const run = promisify(execFile);
const CONNECTIONS = 32;

/** Runs redis-benchmark GET on the key it uses without `-r`, sized from the last rate to last about `durationMs`. */
function redisBenchmark(ctx: SuiteContext, pipeline: number): Contender {
  let rate = pipeline > 1 ? 300_000 : 50_000;
  return {
    id: `P${pipeline}`,
    label: `redis-benchmark GET -P ${pipeline} (-c ${CONNECTIONS})`,
    setup: async () => {
      const client = new Redis({ port: ctx.redis.port, host: '127.0.0.1' });
      // Without -r, redis-benchmark reads this literal key; give it the same ~0.5 KB value the cache suite reads.
      await client.set('key:__rand_int__', JSON.stringify(CACHED_VALUE), 'EX', CACHE_TTL_S);
      client.disconnect();
    },
    run: async (durationMs): Promise<RunResult> => {
      const requests = Math.max(10_000, Math.round((rate * durationMs) / 1000));
      const args = [
        '-h',
        '127.0.0.1',
        '-p',
        String(ctx.redis.port),
        '-t',
        'get',
        '-n',
        String(requests),
        '-c',
        String(CONNECTIONS),
        '-P',
        String(pipeline),
        '--csv',
      ];
      const { stdout } = await run('redis-benchmark', args, { timeout: 120_000 });
      // --csv: a header line, then "GET","<rps>","<avg>","<min>","<p50>","<p95>","<p99>","<max>"
      const [header, row] = stdout
        .trim()
        .split('\n')
        .map((line) => line.split(',').map((cell) => cell.replace(/"/g, '')));
      const column = (name: string) => Number(row[header.indexOf(name)]);
      rate = column('rps');
      return {
        ops: requests,
        elapsedMs: (requests * 1000) / rate,
        p50Ms: column('p50_latency_ms'),
        p99Ms: column('p99_latency_ms'),
        clientCpuUs: Number.NaN,
        errors: 0,
      };
    },
  };
}

/** The server's own limit on this machine: redis-benchmark GET without and with pipelining. */
export function redisBenchmarkGroup(ctx: SuiteContext): BenchGroup {
  return {
    id: 'redis-benchmark',
    title: 'Server limit: redis-benchmark',
    unit: 'one GET of a ~0.5 KB value',
    load: `redis-benchmark, ${CONNECTIONS} connections, -P 1 and -P 16 (16 commands per round trip)`,
    contenders: [redisBenchmark(ctx, 1), redisBenchmark(ctx, 16)],
    ratios: [],
  };
}

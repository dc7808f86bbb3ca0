import Redis from 'ioredis';
import { type RedisServerProcess, startRedisServer } from '../../libs/redis-patterns/src/testing/redis-server-process';

/** Counters read from one `INFO` reply: CPU seconds, socket reads and per-command call counts. */
export interface ServerSample {
  cpuSeconds: number;
  reads: number;
  calls: Map<string, number>;
}

/** What the server did between two samples, with the sampling command itself taken out. */
export interface ServerDelta {
  cpuUs: number;
  reads: number;
  commands: number;
  byCommand: Map<string, number>;
}

/**
 * A redis-server owned by the benchmark, on a free loopback port, so that INFO deltas count only the contenders'
 * traffic (the shared test servers are used by other people's suites at the same time).
 */
export class PrivateRedis {
  private admin?: Redis;

  private constructor(private readonly process: RedisServerProcess) {}

  static async start(): Promise<PrivateRedis> {
    const server = await startRedisServer({ extraArgs: ['--maxmemory-policy', 'noeviction'] });
    const bench = new PrivateRedis(server);
    bench.admin = new Redis({ port: server.port, host: '127.0.0.1', lazyConnect: true, enableAutoPipelining: false });
    await bench.admin.connect();
    return bench;
  }

  get port(): number {
    return this.process.port;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** The server version, for the report. */
  async version(): Promise<string> {
    const info = await this.admin!.info('server');
    return /redis_version:(\S+)/.exec(info)?.[1] ?? 'unknown';
  }

  /** One `INFO` call: cpu, stats and commandstats. */
  async sample(): Promise<ServerSample> {
    const info = (await this.admin!.call('INFO', 'cpu', 'stats', 'commandstats')) as string;
    const number = (name: string) => Number(new RegExp(`^${name}:([0-9.]+)`, 'm').exec(info)?.[1] ?? Number.NaN);
    const calls = new Map<string, number>();
    for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) calls.set(match[1], Number(match[2]));
    return { cpuSeconds: number('used_cpu_user') + number('used_cpu_sys'), reads: number('total_reads_processed'), calls };
  }

  /** Difference between two samples, minus the one INFO command (and its socket read) that took `after`. */
  static delta(before: ServerSample, after: ServerSample): ServerDelta {
    const byCommand = new Map<string, number>();
    let commands = 0;
    for (const [name, count] of after.calls) {
      const diff = count - (before.calls.get(name) ?? 0) - (name === 'info' ? 1 : 0);
      if (diff > 0) {
        byCommand.set(name, diff);
        commands += diff;
      }
    }
    return { cpuUs: (after.cpuSeconds - before.cpuSeconds) * 1e6, reads: after.reads - before.reads - 1, commands, byCommand };
  }

  async stop(): Promise<void> {
    this.admin?.disconnect();
    await this.process.stop();
  }
}

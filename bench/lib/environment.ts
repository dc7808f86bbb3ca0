import { readFileSync } from 'node:fs';
import { cpus, loadavg, totalmem, type as osType, release } from 'node:os';
import { join } from 'node:path';

/** Where and with what a run happened: printed at the top of the report. */
export interface Environment {
  date: string;
  node: string;
  os: string;
  cpu: string;
  cores: number;
  memoryGb: number;
  redis: string;
  /** 1-minute load average when the run started: how busy the (shared) machine was. */
  loadAverage: number;
  versions: Record<string, string>;
}

const PACKAGES = [
  'ioredis',
  '@nestjs/core',
  '@nestjs/platform-express',
  '@nestjs/platform-fastify',
  'cache-manager',
  'keyv',
  '@keyv/redis',
  '@nestjs/cache-manager',
  'rate-limiter-flexible',
  '@nestjs/throttler',
  '@nest-lab/throttler-storage-redis',
  '@nestjs-redis/throttler-storage',
  '@nestjs-redis/lock',
  '@redis-kit/lock',
  'redis',
  'redlock',
  'redlock4',
  'redis-semaphore',
  '@redis/client',
  'autocannon',
];

function installedVersion(name: string): string {
  try {
    const manifest = JSON.parse(readFileSync(join(process.cwd(), 'node_modules', name, 'package.json'), 'utf8'));
    return String(manifest.version).replace(/^v/, '');
  } catch {
    return 'not installed';
  }
}

export function describeEnvironment(redisVersion: string): Environment {
  const cpu = cpus();
  return {
    date: new Date().toISOString(),
    node: process.version,
    os: `${osType()} ${release()}`,
    cpu: cpu[0]?.model ?? 'unknown',
    cores: cpu.length,
    memoryGb: Math.round(totalmem() / 2 ** 30),
    redis: redisVersion,
    loadAverage: Math.round(loadavg()[0] * 10) / 10,
    versions: Object.fromEntries(PACKAGES.map((name) => [name, installedVersion(name)])),
  };
}

// Minimal typings for the peers whose own typings TypeScript cannot resolve here: autocannon ships none, and
// redlock 5's `exports` map points `require` at a CommonJS build without types (its .d.ts is under `types`).

declare module 'autocannon' {
  interface AutocannonRequest {
    method?: string;
    path?: string;
    setupRequest?: (request: object) => object;
  }
  interface AutocannonOptions {
    url: string;
    connections?: number;
    duration?: number;
    requests?: AutocannonRequest[];
  }
  interface AutocannonResult {
    requests: { total: number; average: number };
    latency: { p50: number; p99: number };
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
  }
  function autocannon(options: AutocannonOptions): Promise<AutocannonResult>;
  export default autocannon;
}

declare module 'redlock' {
  import type { Cluster, Redis } from 'ioredis';
  export interface RedlockLock {
    release(): Promise<unknown>;
  }
  export default class Redlock {
    constructor(clients: Iterable<Redis | Cluster>, settings?: { retryCount?: number; retryDelay?: number; driftFactor?: number });
    acquire(resources: string[], duration: number): Promise<RedlockLock>;
  }
}

import type { INestApplicationContext } from '@nestjs/common';
import { RedisConnections } from 'nestjs-redis-patterns';
import type { RedisConnectionConfig } from '../../libs/redis-patterns/src/core/options/connection-config.interface';
import { connectionFor, rawClient, scanKeys, type TopologyName } from './redis-env';

/**
 * Where a behaviour spec runs: a real Redis topology, or the module's in-memory mode. The specs that define a
 * pattern's behaviour run on each, so the in-memory stores cannot drift from the Redis ones.
 */
export type BackendName = TopologyName | 'memory';

/** The module `connection` config of a backend. */
export function connectionOf(backend: BackendName): RedisConnectionConfig {
  return backend === 'memory' ? 'memory://' : connectionFor(backend);
}

/** What a spec may check (or change, playing another client) of the keys a backend holds, whichever it is. */
export interface KeyInspector {
  get(key: string): Promise<string | null>;
  /** Writes a string with a TTL, as another client would (SET … PX). */
  set(key: string, value: string, ttlMs: number): Promise<void>;
  del(key: string): Promise<number>;
  exists(key: string): Promise<number>;
  /** PTTL of a key (−2 missing, −1 no TTL). */
  pttl(key: string): Promise<number>;
  /** Every key that starts with `prefix`. */
  keys(prefix: string): Promise<string[]>;
  /** Keys under `prefix` without a TTL (invariant 1). */
  keysWithoutTtl(prefix: string): Promise<string[]>;
  close(): void;
}

/** Looks at the keys of `app`'s backend: the server itself for Redis, the module's keyspace in memory. */
export function inspectKeys(backend: BackendName, app: INestApplicationContext): KeyInspector {
  if (backend === 'memory') {
    const memory = app.get(RedisConnections).memory!;
    return {
      get: async (key) => {
        const value = memory.get(key);
        return value === undefined ? null : String(value);
      },
      set: async (key, value, ttlMs) => memory.set(key, value, ttlMs),
      del: async (key) => memory.delete(key),
      exists: async (key) => (memory.get(key) === undefined ? 0 : 1),
      pttl: async (key) => memory.pttl(key),
      keys: async (prefix) => memory.keys(prefix),
      keysWithoutTtl: async (prefix) => memory.keys(prefix).filter((key) => memory.pttl(key) === -1),
      close: () => undefined,
    };
  }
  const client = rawClient(backend);
  const inspector: KeyInspector = {
    get: (key) => client.get(key),
    set: async (key, value, ttlMs) => void (await client.set(key, value, 'PX', ttlMs)),
    del: (key) => client.del(key),
    exists: (key) => client.exists(key),
    pttl: (key) => client.pttl(key),
    keys: async (prefix) => {
      // A cluster client knows its masters only once connected: scanning before would find nothing.
      await client.ping();
      return scanKeys(client, `${prefix}*`);
    },
    keysWithoutTtl: async (prefix) => {
      const keys = await inspector.keys(prefix);
      const ttls = await Promise.all(keys.map((key) => client.pttl(key)));
      return keys.filter((_, i) => ttls[i] === -1);
    },
    close: () => client.disconnect(),
  };
  return inspector;
}

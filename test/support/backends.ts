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

/** What a spec may check of the keys a backend holds, whichever it is. */
export interface KeyInspector {
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
      pttl: async (key) => memory.pttl(key),
      keys: async (prefix) => memory.keys(prefix),
      keysWithoutTtl: async (prefix) => memory.keys(prefix).filter((key) => memory.pttl(key) === -1),
      close: () => undefined,
    };
  }
  const client = rawClient(backend);
  const inspector: KeyInspector = {
    pttl: (key) => client.pttl(key),
    keys: (prefix) => scanKeys(client, `${prefix}*`),
    keysWithoutTtl: async (prefix) => {
      const keys = await inspector.keys(prefix);
      const ttls = await Promise.all(keys.map((key) => client.pttl(key)));
      return keys.filter((_, i) => ttls[i] === -1);
    },
    close: () => client.disconnect(),
  };
  return inspector;
}

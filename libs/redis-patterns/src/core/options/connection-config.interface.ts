import type { Cluster, ClusterNode, ClusterOptions, Redis, RedisOptions, SentinelAddress } from 'ioredis';

/**
 * A Redis URL: `redis://[user:password@]host:port[/db]`, or `rediss://…` for TLS; or `memory://` (every pattern in
 * this process, for unit tests).
 */
export type RedisUrl = string;

/** A Redis Cluster: the seed nodes and optional ioredis cluster options. */
export interface ClusterConnectionConfig {
  cluster: { nodes: ClusterNode[]; options?: ClusterOptions };
}

/** A master found through Sentinel. `name` is the monitored master's name. */
export interface SentinelConnectionConfig {
  sentinel: {
    sentinels: Array<Partial<SentinelAddress>>;
    name: string;
    /** Options for the data connection (password, db, tls, …) and the sentinel connections. */
    options?: Omit<RedisOptions, 'sentinels' | 'name'>;
  };
}

/** An existing ioredis client the module uses but never closes. */
export interface AdoptedClientConfig {
  client: Redis | Cluster;
}

/**
 * How to reach one Redis deployment: a URL, ioredis options, a cluster, a sentinel group, or an adopted client.
 * Owned connections get the fail-fast defaults (see `FAIL_FAST_DEFAULTS`); explicit ioredis options win.
 */
export type RedisConnectionConfig = RedisUrl | RedisOptions | ClusterConnectionConfig | SentinelConnectionConfig | AdoptedClientConfig;

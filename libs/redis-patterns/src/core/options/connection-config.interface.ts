import type { Cluster, ClusterNode, ClusterOptions, Redis, RedisOptions, SentinelAddress } from 'ioredis';

/** A Redis Cluster: the seed nodes and optional ioredis cluster options. */
export interface ClusterConnectionConfig {
  /**
   * `nodes`: some nodes of the cluster to discover it from; `options`: ioredis cluster options, applied over the
   * fail-fast defaults (`options.redisOptions` for the per-node connections).
   */
  cluster: { nodes: ClusterNode[]; options?: ClusterOptions };
}

/** A master found through Sentinel. `name` is the monitored master's name. */
export interface SentinelConnectionConfig {
  /** The sentinels to ask, the master's name, and the connection options. */
  sentinel: {
    /** Addresses of the sentinels (host and port) that monitor the master. */
    sentinels: Array<Partial<SentinelAddress>>;
    /** The master's name, as the sentinels monitor it. */
    name: string;
    /** Options for the data connection (password, db, tls, …) and the sentinel connections. */
    options?: Omit<RedisOptions, 'sentinels' | 'name'>;
  };
}

/** An existing ioredis client the module uses but never closes. */
export interface AdoptedClientConfig {
  /**
   * The client, used as configured (the fail-fast defaults do not apply). The application connects and closes it;
   * dedicated connections (subscriptions, blocking reads) are duplicated from it and owned by the module.
   */
  client: Redis | Cluster;
}

/**
 * How to reach one Redis deployment: a URL, ioredis options, a cluster, a sentinel group, or an adopted client. A URL
 * is `redis://[user:password@]host:port[/db]`, `rediss://…` for TLS, or `memory://` (every pattern in this process,
 * for unit tests). Owned connections get the fail-fast defaults (see `FAIL_FAST_DEFAULTS`); explicit ioredis options win.
 */
export type RedisConnectionConfig = string | RedisOptions | ClusterConnectionConfig | SentinelConnectionConfig | AdoptedClientConfig;

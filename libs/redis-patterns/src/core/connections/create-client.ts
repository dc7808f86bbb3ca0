import { Cluster, Redis, type RedisOptions } from 'ioredis';
import type { RedisConnectionConfig } from '../options/connection-config.interface';
import { failFastOptions, silentSocketDeadlineMs } from './fail-fast-defaults';
import { secretsOfClient, secretsOfNodes } from './redact-client-secrets';
import { ReplyDeadlines } from './reply-deadlines';

/** Which kind of deployment a connection talks to. */
export type ConnectionKind = 'standalone' | 'cluster' | 'sentinel' | 'memory';

/** A client the module holds, with whether the module created it (and so must close it). */
export interface ManagedClient {
  readonly client: Redis | Cluster;
  readonly owned: boolean;
  readonly kind: ConnectionKind;
  /** Host and port, or the sentinel master name: never credentials. */
  readonly endpoint: string;
  /** Passwords found in the config, redacted from anything the module logs. */
  readonly secrets: readonly string[];
}

interface ClientSettings {
  readonly name: string;
  /** The module's keyPrefix: part of the CLIENT SETNAME, so an operator can tell applications apart. */
  readonly keyPrefix: string;
  readonly commandTimeoutMs: number;
  readonly connectTimeoutMs: number;
}

/** Creates (or adopts) the client described by one connection config, with the fail-fast defaults for owned ones. */
export function createClient(config: RedisConnectionConfig, settings: ClientSettings): ManagedClient {
  const defaults: RedisOptions = {
    ...failFastOptions(settings.connectTimeoutMs),
    connectionName: clientName(settings.keyPrefix, settings.name),
  };
  if (typeof config === 'string') {
    const url = new URL(config);
    const client = withDeadlines(new Redis(config, defaults), settings);
    return {
      client,
      owned: true,
      kind: 'standalone',
      endpoint: `${url.protocol}//${url.hostname}:${url.port || 6379}${url.pathname.length > 1 ? url.pathname : ''}`,
      secrets: url.password ? [decodeURIComponent(url.password)] : [],
    };
  }
  if ('client' in config) {
    const client = config.client;
    const kind: ConnectionKind = client instanceof Cluster ? 'cluster' : client.options.sentinels?.length ? 'sentinel' : 'standalone';
    return { client, owned: false, kind, endpoint: describeAdopted(client), secrets: secretsOfClient(client) };
  }
  if ('cluster' in config) {
    const { nodes, options = {} } = config.cluster;
    const { connectTimeout, ...perNodeDefaults } = defaults;
    const client = new Cluster(nodes, {
      enableOfflineQueue: false,
      enableAutoPipelining: true,
      lazyConnect: true,
      clusterRetryStrategy: defaults.retryStrategy as (times: number) => number,
      ...options,
      // The cluster auto-pipelines by node itself; a node connection must not. ioredis follows an ASK redirection by
      // calling asking() on the node connection and then writing the command straight to its socket: with
      // auto-pipelining on the node, ASKING is deferred to the next batch and lands after the command, which the
      // importing node answers with MOVED back to the source, and the command bounces between the two until
      // maxRedirections.
      // A cluster's nodes keep ioredis' own deadline pair: ioredis creates them itself and gives each an offline
      // queue, which the reply sweep of a single server does not see.
      redisOptions: {
        ...perNodeDefaults,
        commandTimeout: settings.commandTimeoutMs,
        socketTimeout: silentSocketDeadlineMs(settings.commandTimeoutMs),
        enableAutoPipelining: false,
        connectTimeout,
        ...options.redisOptions,
      },
    });
    const secrets = [...secretsOfClient(client), ...secretsOfNodes(nodes)];
    return { client, owned: true, kind: 'cluster', endpoint: `cluster(${nodes.length} seed nodes)`, secrets };
  }
  if ('sentinel' in config) {
    const { sentinels, name, options = {} } = config.sentinel;
    // No failoverDetector: with it, quit() leaves the sentinel sockets open (ioredis#1362).
    const client = withDeadlines(new Redis({ ...defaults, ...options, sentinels, name }), settings);
    const secrets = [options.password, options.sentinelPassword].filter((s): s is string => typeof s === 'string');
    return { client, owned: true, kind: 'sentinel', endpoint: `sentinel(${name})`, secrets };
  }
  const client = withDeadlines(new Redis({ ...defaults, ...config }), settings);
  return {
    client,
    owned: true,
    kind: config.sentinels?.length ? 'sentinel' : 'standalone',
    endpoint: config.sentinels?.length ? `sentinel(${config.name})` : `${config.host ?? '127.0.0.1'}:${config.port ?? 6379}`,
    secrets: config.password ? [config.password] : [],
  };
}

/** An owned single-server connection keeps the command deadline with one sweep of its replies (see ReplyDeadlines). */
function withDeadlines(client: Redis, settings: ClientSettings): Redis {
  ReplyDeadlines.keep(client, settings.commandTimeoutMs);
  return client;
}

function describeAdopted(client: Redis | Cluster): string {
  if (client instanceof Cluster) return 'cluster(adopted)';
  return `${client.options.host ?? '127.0.0.1'}:${client.options.port ?? 6379} (adopted)`;
}

/** `redis-patterns:<keyPrefix>:<connection>[:<purpose>]` (CLIENT SETNAME allows no spaces). */
export function clientName(keyPrefix: string, ...parts: string[]): string {
  return ['redis-patterns', keyPrefix || '-', ...parts].join(':').replace(/\s/g, '_');
}

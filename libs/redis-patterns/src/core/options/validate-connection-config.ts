import { InvalidOptionsError } from '../../errors/invalid-options.error';
import { checkObject, invalid, isPlainObject } from './option-checks';

const URL_EXPECTED = 'a redis:// or rediss:// URL such as "redis://user:password@host:6379/0" (or "memory://" for unit tests)';

/** The connection that runs every pattern in this process, for unit tests (see `RedisConnections.memory`). */
export const MEMORY_CONNECTION = 'memory://';

/**
 * Validates one connection config. URLs are parsed here, not at connect time, so a typo fails startup with
 * the option's name. Credentials are never echoed back in the message.
 */
export function validateConnectionConfig(value: unknown, path: string): void {
  if (value === MEMORY_CONNECTION) return;
  if (typeof value === 'string') return validateRedisUrl(value, path);
  const config = checkObject(value, path);
  if ('cluster' in config) return validateCluster(config.cluster, `${path}.cluster`);
  if ('sentinel' in config) return validateSentinel(config.sentinel, `${path}.sentinel`);
  if ('client' in config) return validateAdoptedClient(config.client, `${path}.client`);
  validateRedisOptions(config, path);
}

export function validateRedisUrl(value: string, path: string): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidOptionsError(path, URL_EXPECTED, 'a string that is not a URL');
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    throw new InvalidOptionsError(path, URL_EXPECTED, `a URL with protocol "${url.protocol}"`);
  }
  if (!url.hostname) throw new InvalidOptionsError(path, URL_EXPECTED, 'a URL without a host');
  const db = url.pathname.replace(/^\//, '');
  if (db !== '' && !/^\d+$/.test(db)) {
    throw new InvalidOptionsError(path, `${URL_EXPECTED} (the path, if any, is a database number)`, `the path "/${db}"`);
  }
}

function validateRedisOptions(options: Record<string, unknown>, path: string): void {
  if (options.port !== undefined && !(Number.isInteger(options.port) && (options.port as number) > 0 && (options.port as number) < 65536)) {
    invalid(`${path}.port`, 'a TCP port between 1 and 65535', options.port);
  }
  if (options.host !== undefined && typeof options.host !== 'string') invalid(`${path}.host`, 'a host name', options.host);
  if (options.db !== undefined && !(Number.isInteger(options.db) && (options.db as number) >= 0)) {
    invalid(`${path}.db`, 'a database number (an integer of at least 0)', options.db);
  }
  if (options.keyPrefix !== undefined) {
    invalid(
      `${path}.keyPrefix`,
      'no ioredis keyPrefix (use the module option "keyPrefix", which scripts and hash tags respect)',
      options.keyPrefix,
    );
  }
}

function validateCluster(value: unknown, path: string): void {
  const cluster = checkObject(value, path);
  const nodes = cluster.nodes;
  if (!Array.isArray(nodes) || nodes.length === 0) {
    invalid(`${path}.nodes`, 'a non-empty array of seed nodes ({ host, port } or "host:port")', nodes);
  }
  nodes.forEach((node, i) => {
    const ok =
      typeof node === 'string' || typeof node === 'number' || (isPlainObject(node) && (node.port !== undefined || node.host !== undefined));
    if (!ok) invalid(`${path}.nodes[${i}]`, 'a seed node ({ host, port } or "host:port")', node);
  });
  if (cluster.options !== undefined) checkObject(cluster.options, `${path}.options`);
}

function validateSentinel(value: unknown, path: string): void {
  const sentinel = checkObject(value, path);
  if (!Array.isArray(sentinel.sentinels) || sentinel.sentinels.length === 0) {
    invalid(`${path}.sentinels`, 'a non-empty array of sentinel addresses ({ host, port })', sentinel.sentinels);
  }
  if (typeof sentinel.name !== 'string' || sentinel.name.length === 0) {
    invalid(`${path}.name`, 'the name of the monitored master (as in "sentinel monitor <name> …")', sentinel.name);
  }
  if (sentinel.options !== undefined) checkObject(sentinel.options, `${path}.options`);
}

function validateAdoptedClient(value: unknown, path: string): void {
  const looksLikeClient = isPlainObject(value) || (typeof value === 'object' && value !== null);
  if (
    !looksLikeClient ||
    typeof (value as { duplicate?: unknown }).duplicate !== 'function' ||
    typeof (value as { status?: unknown }).status !== 'string'
  ) {
    invalid(path, 'an ioredis Redis or Cluster instance', value);
  }
}

import { Cluster, type ClusterNode, type Redis, type RedisOptions } from 'ioredis';

/**
 * The passwords an adopted client authenticates with: its own options (password, sentinel password), and for a
 * cluster the per-node options and the seed nodes it was created with (URLs may carry a password). ioredis prints
 * them with `DEBUG=ioredis:*` (its AUTH / HELLO commands, the cluster's node list), so they join the secrets redacted
 * from that output and from the module's logs.
 */
export function secretsOfClient(client: Redis | Cluster): string[] {
  if (client instanceof Cluster) {
    // ioredis keeps the seeds it was given as `startupNodes` (not typed as public).
    const seeds = (client as unknown as { startupNodes?: readonly ClusterNode[] }).startupNodes ?? [];
    return [...secretsOfOptions(client.options.redisOptions), ...secretsOfNodes(seeds)];
  }
  return secretsOfOptions(client.options);
}

/** The passwords in cluster seed nodes: `redis://user:password@host:port` strings and `{ password }` objects. */
export function secretsOfNodes(nodes: readonly ClusterNode[]): string[] {
  const secrets: string[] = [];
  for (const node of nodes) {
    if (typeof node === 'string') secrets.push(...urlPasswords(node));
    else if (node && typeof node === 'object') secrets.push(...secretsOfOptions(node as Partial<RedisOptions>));
  }
  return secrets;
}

/** `password` and `sentinelPassword` of connection options, when they are strings. */
export function secretsOfOptions(options: Partial<RedisOptions> | undefined): string[] {
  return [options?.password, options?.sentinelPassword].filter((s): s is string => typeof s === 'string' && s.length > 0);
}

// The password of a URL as written and decoded: a log may print either.
function urlPasswords(text: string): string[] {
  try {
    const url = new URL(text.includes('//') ? text : `redis://${text}`);
    if (!url.password) return [];
    const decoded = decodeURIComponent(url.password);
    return decoded === url.password ? [decoded] : [decoded, url.password];
  } catch {
    return [];
  }
}

import { Cluster, type Redis } from 'ioredis';

/** Entries still pending (read, never acknowledged) in a group: XPENDING summary count. */
export async function pendingCount(raw: Redis | Cluster, key: string, group: string): Promise<number> {
  const summary = (await raw.call('XPENDING', key, group)) as [number, ...unknown[]];
  return Number(summary[0]);
}

/** Every entry of a stream, fields as an object. */
export async function readAll(raw: Redis | Cluster, key: string): Promise<Array<{ id: string; fields: Record<string, string> }>> {
  const rows = (await raw.xrange(key, '-', '+')) as Array<[string, string[]]>;
  return rows.map(([id, flat]) => {
    const fields: Record<string, string> = {};
    for (let i = 0; i < flat.length; i += 2) fields[flat[i]] = flat[i + 1];
    return { id, fields };
  });
}

/** Names of this test's clients in CLIENT LIST (every master of a cluster). */
export async function clientNames(raw: Redis | Cluster): Promise<string[]> {
  const nodes = raw instanceof Cluster ? raw.nodes('master') : [raw];
  const lists = await Promise.all(nodes.map((node) => node.client('LIST') as Promise<string>));
  return lists
    .flatMap((list) => list.split('\n'))
    .map((line) => /name=(\S*)/.exec(line)?.[1] ?? '')
    .filter(Boolean);
}

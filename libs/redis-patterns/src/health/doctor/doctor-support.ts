import { Cluster, type Redis } from 'ioredis';
import { configurationReplyCode } from '../../errors/redis-refused.error';
import type { DoctorCheck } from './doctor.types';

/** Every master: the cluster's, or the one server. */
export function mastersOf(client: Redis | Cluster): Redis[] {
  return client instanceof Cluster ? client.nodes('master') : [client];
}

/** `host:port` of one node (never credentials). */
export function endpointOf(node: Redis): string {
  return `${node.options.host ?? '?'}:${node.options.port ?? '?'}`;
}

/** Bytes in the units Redis' `*_human` fields use (1 KB = 1024 B): `512 B`, `12.3 KB`, `61.2 MB`. */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(1).replace(/\.0$/, '')} ${units[unit]}`;
}

/** `1 call`, `3 calls`. */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/**
 * The server's refusal of a command, as one line without the arguments Redis echoes (`with args beginning with: …`
 * may hold key names), or undefined when the error is no refusal (an outage, a timeout).
 */
export function refusalOf(error: unknown): string | undefined {
  if (configurationReplyCode(error) === undefined) return undefined;
  return (error as Error).message.split('\n')[0].replace(/,? with args beginning with:.*$/, '');
}

/**
 * The finding of a check the server would not let run (managed services rename or block CONFIG, DEBUG, SLOWLOG,
 * MEMORY, ACL…): a warning, since nothing was judged, saying what was refused and how to run it.
 */
export function couldNotRun(name: string, refusal: string): DoctorCheck {
  return {
    name,
    status: 'warn',
    reason: `could not run: the server refused a command the check needs (${refusal})`,
    fix: 'Run the doctor as an administrator (an ACL user with +@admin, or the default user); a managed service that blocks the command has its own console or metrics for this check.',
  };
}

/** Keys sampled from the whole keyspace, per master. */
export interface KeyspaceSample {
  /** The sampled keys of each master. */
  nodes: Array<{ node: Redis; keys: string[] }>;
  /** How many keys were sampled in all. */
  scanned: number;
  /** False when the sample limit stopped the scan before the end of some master's keyspace. */
  complete: boolean;
  /** The sample limit. */
  limit: number;
}

/**
 * SCAN (never KEYS) of the whole keyspace of every master, at most `limit` keys in all, shared out evenly between the
 * masters so that a large first master does not hide the others.
 */
export async function sampleKeyspace(client: Redis | Cluster, limit: number): Promise<KeyspaceSample> {
  const masters = mastersOf(client);
  const perNode = Math.max(1, Math.ceil(limit / masters.length));
  const nodes: KeyspaceSample['nodes'] = [];
  let complete = true;
  let scanned = 0;
  for (const node of masters) {
    const keys = new Set<string>();
    let cursor = '0';
    do {
      const [next, batch] = await node.scan(cursor, 'COUNT', 1000);
      cursor = next;
      const room = Math.min(perNode, limit - scanned);
      for (const key of batch) {
        if (keys.size < room) keys.add(key);
        else if (!keys.has(key)) complete = false;
      }
      if (keys.size >= room && cursor !== '0') {
        complete = false;
        break;
      }
    } while (cursor !== '0');
    scanned += keys.size;
    nodes.push({ node, keys: [...keys] });
  }
  return { nodes, scanned, complete, limit };
}

/**
 * Visits the sample in slices of at most `batch` keys per master, one after the other (one pipeline in flight, so a
 * production server is never flooded); `node` is the endpoint to report on a cluster, undefined on one server.
 */
export async function forEachSlice(
  sample: KeyspaceSample,
  batch: number,
  visit: (server: Redis, keys: string[], node: string | undefined) => Promise<void>,
): Promise<void> {
  const cluster = sample.nodes.length > 1;
  for (const { node, keys } of sample.nodes) {
    for (let start = 0; start < keys.length; start += batch) {
      await visit(node, keys.slice(start, start + batch), cluster ? endpointOf(node) : undefined);
    }
  }
}

/** The replies of a pipeline, rejecting with its first error (a refusal of the pipelined command, usually). */
export async function pipelineReplies(node: Redis, commands: Array<[string, ...Array<string | number>]>): Promise<unknown[]> {
  if (commands.length === 0) return [];
  const pipeline = node.pipeline();
  for (const [command, ...args] of commands) pipeline.call(command, ...args);
  const results = (await pipeline.exec()) ?? [];
  // WRONGTYPE is no refusal of the command here: the key changed type between two pipelines.
  const failed = results.find(([error]) => error && ![undefined, 'WRONGTYPE'].includes(configurationReplyCode(error)));
  if (failed) throw failed[0];
  return results.map(([error, reply]) => (error ? undefined : reply));
}

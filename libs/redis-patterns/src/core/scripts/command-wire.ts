import { type Cluster, Command, type Redis } from 'ioredis';
import { RedisUnavailableError, type RedisUnavailableReason } from '../../errors/redis-unavailable.error';
import { ReplyDeadlines } from '../connections/reply-deadlines';

type RedisArg = string | number | Buffer;
type RedisClient = Redis | Cluster;

/** How ioredis hands a reply over: utf8 strings, or (no encoding) Buffers. */
export type ReplyEncoding = { readonly replyEncoding?: 'utf8' };
const UTF8: ReplyEncoding = { replyEncoding: 'utf8' };
/** Replies as Buffers, for binary values a utf8 reply would corrupt. */
export const BINARY: ReplyEncoding = {};

/** Straight to the connection: no auto-pipeline, whatever the client's options. */
export function alone<TReply>(
  client: RedisClient,
  name: string,
  args: ReadonlyArray<unknown>,
  encoding: ReplyEncoding = UTF8,
): Promise<TReply> {
  return client.sendCommand(new Command(name, args as RedisArg[], encoding)) as Promise<TReply>;
}

/** NOSCRIPT: the server does not hold the script (a SCRIPT FLUSH, a restart, a new node); it did not run. */
export function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('NOSCRIPT');
}

/** The server's words for a call whose keys this node does not serve, or cannot serve now: the call did not run. */
export const NOT_SERVED_HERE = /non local key|cluster is down|TRYAGAIN|MOVED|ASK/;

/** The outage error of a command on `client`, naming its connection (or, unnamed, its address). */
export function unavailableError(
  client: RedisClient,
  connection: string | undefined,
  command: string,
  reason: RedisUnavailableReason,
  cause: unknown,
) {
  return new RedisUnavailableError(connection ?? addressOf(client), command, reason, {
    timeoutMs: commandTimeoutOf(client),
    reconnecting: client.status !== 'end',
    cause,
  });
}

/** Where a connection the module did not name points: its address (never credentials). */
function addressOf(client: RedisClient): string {
  if ((client as Cluster).isCluster === true) return 'cluster';
  const { host, port, sentinels, name } = (client as Redis).options;
  return sentinels?.length ? `sentinel:${name}` : `${host ?? '127.0.0.1'}:${port ?? 6379}`;
}

/** The client's command deadline (a cluster's is its nodes'), when it has one. */
function commandTimeoutOf(client: RedisClient): number | undefined {
  if ((client as Cluster).isCluster === true) return (client as Cluster).options.redisOptions?.commandTimeout;
  return (client as Redis).options.commandTimeout ?? ReplyDeadlines.of(client as Redis)?.deadlineMs;
}

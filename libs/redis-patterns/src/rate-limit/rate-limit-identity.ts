import { type ExecutionContext, Inject, Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { ThrottledLog } from '../core/logging/throttled-log';
import { requestOf } from '../core/advice/handler-call';
import { isThenable } from '../core/promises/is-thenable';
import { RESOLVED_OPTIONS } from '../redis-patterns.constants';
import type { ResolvedRedisPatternsOptions } from '../redis-patterns.options';
import { RateLimitIdentityError } from './rate-limit-identity.error';
import { clientAddress } from './client-address';
import { trackerPart } from './rate-limit-key';
import { RATE_LIMIT_SETTINGS, type RateLimitSettings } from './rate-limit.options';
import type { ResolvedLimiter } from './resolve-limiter';

type ClientRequest = Parameters<typeof clientAddress>[0];
type SocketLike = { remoteAddress?: string };
type WsClient = { request?: ClientRequest; handshake?: { address?: string }; _socket?: SocketLike; conn?: { remoteAddress?: string } };

/** The parts of a limiter key (see RateLimitKey): escaped one by one by the key builder. */
export type LimiterKeyParts = readonly string[];

/**
 * Who a `@RateLimit` budget is counted per on a handler call, in each execution context — one place for the guard
 * and the advice:
 * - `key` given: `key(request, context)`, where `request` is the HTTP request (HTTP, and the HTTP request of a
 *   GraphQL operation), the payload (RPC) or the client socket (WebSocket);
 * - else `rateLimit.getTracker(context)` when configured;
 * - else the context's own client: the client address (HTTP, GraphQL, and WebSocket by default, so a reconnect
 *   keeps its budget), the connection (WebSocket with `rateLimit.wsIdentity: 'connection'`), or none on RPC, where
 *   the budget is the handler's (one per limiter name).
 * A tracker that names no one (`undefined`, `null`, `''`) is refused with RateLimitIdentityError. The limiter key is
 * `[rateLimit.generateKey(context, tracker, name)]` when configured, else the two parts `[name, tracker]`.
 */
@Injectable()
export class RateLimitIdentity {
  private readonly socketAddresses = new WeakMap<object, string>();
  private readonly connectionIds = new WeakMap<object, string>();
  private readonly hops: number;
  private readonly ipv6Subnet: number;
  private readonly forwardedLog: ThrottledLog;
  private readonly onInvalidForwarded = (entry: string): void =>
    this.forwardedLog.warn(
      `X-Forwarded-For entry ${JSON.stringify(entry.slice(0, 64))} is not an IP address; counting the request under the socket address ` +
        '(check the proxies in front of the app and rateLimit.trustProxyHops)',
    );

  constructor(
    @Inject(RATE_LIMIT_SETTINGS) private readonly settings: RateLimitSettings,
    @Inject(RESOLVED_OPTIONS) options: ResolvedRedisPatternsOptions,
  ) {
    this.hops = settings.trustProxyHops;
    this.ipv6Subnet = settings.ipv6Subnet;
    this.forwardedLog = new ThrottledLog(options.logger ?? new Logger('RedisPatterns:RateLimit'));
  }

  /** The limiter key of a handler call, as parts (escaped and length-bounded later by the key builder). */
  keyOf(context: ExecutionContext, limiter: ResolvedLimiter): LimiterKeyParts | Promise<LimiterKeyParts> {
    const { key, name } = limiter;
    const getTracker = this.settings.getTracker;
    let tracker: unknown;
    let source: string;
    if (key !== undefined) {
      tracker = typeof key === 'function' ? key(requestOf(context), context) : key;
      source = '`key`';
    } else if (getTracker) {
      tracker = getTracker(context);
      source = 'rateLimit.getTracker';
    } else {
      // RPC has no client: the budget is the handler's.
      if (context.getType<string>() === 'rpc') return [name];
      tracker = this.clientOf(context, name);
      source = 'the client address';
    }
    return isThenable(tracker)
      ? Promise.resolve(tracker).then((value) => this.generate(context, trackerPart(value, name, source), name))
      : this.generate(context, trackerPart(tracker, name, source), name);
  }

  private generate(context: ExecutionContext, tracker: string, name: string): LimiterKeyParts {
    const generateKey = this.settings.generateKey;
    return generateKey ? [trackerPart(generateKey(context, tracker, name), name, 'rateLimit.generateKey')] : [name, tracker];
  }

  private clientOf(context: ExecutionContext, limiter: string): string {
    switch (context.getType<string>()) {
      case 'http':
        return this.addressOf(context.switchToHttp().getRequest<ClientRequest>());
      case 'ws':
        return this.wsTracker(context.getArgByIndex<WsClient>(0), limiter);
      case 'graphql': {
        const request = graphqlRequest(context);
        if (!request)
          throw new RateLimitIdentityError(limiter, 'the GraphQL context has no HTTP request (`req`, `request` or `reply.request`)');
        return this.addressOf(request);
      }
      default:
        throw new RateLimitIdentityError(limiter, `the "${context.getType<string>()}" context has no client Nest describes`);
    }
  }

  private addressOf(request: ClientRequest): string {
    // Without trusted proxies the identity is the socket's peer, fixed for the connection's life: normalise it
    // once per keep-alive connection rather than on every request.
    const socket = this.hops === 0 ? (request.socket ?? request.raw?.socket) : undefined;
    if (socket?.remoteAddress) {
      let address = this.socketAddresses.get(socket);
      if (address === undefined) this.socketAddresses.set(socket, (address = clientAddress(request, 0, this.ipv6Subnet)));
      return address;
    }
    return clientAddress(request, this.hops, this.ipv6Subnet, this.onInvalidForwarded);
  }

  private wsTracker(client: WsClient, limiter: string): string {
    if (this.settings.wsIdentity === 'connection') {
      // A random id per connection (never the client's own socket.io id, which a client may choose on reconnect).
      let id = this.connectionIds.get(client);
      if (id === undefined) this.connectionIds.set(client, (id = `ws:${randomUUID()}`));
      return id;
    }
    // socket.io keeps the upgrade request (headers for trusted proxies); the ws adapter keeps only the socket.
    if (client.request) return this.addressOf(client.request);
    if (this.hops > 0)
      throw new RateLimitIdentityError(
        limiter,
        'a ws-adapter client carries no upgrade request, so X-Forwarded-For cannot be read (rateLimit.trustProxyHops)',
        "Give the decorator a `key`, set rateLimit.getTracker, or count per connection with rateLimit.wsIdentity: 'connection' (a reconnect then starts a fresh budget).",
      );
    return this.addressOf({ socket: client._socket ?? { remoteAddress: client.conn?.remoteAddress ?? client.handshake?.address } });
  }
}

/** The HTTP request of a GraphQL operation, read by position (the third resolver argument is the GraphQL context). */
function graphqlRequest(context: ExecutionContext): ClientRequest | undefined {
  const gql = context.getArgByIndex<{ req?: ClientRequest; request?: ClientRequest; reply?: { request?: ClientRequest } } | undefined>(2);
  return gql?.req ?? gql?.request ?? gql?.reply?.request;
}

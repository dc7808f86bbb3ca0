import { type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { RateLimitIdentityError } from './rate-limit-identity.error';
import { clientAddress } from './client-address';
import { RATE_LIMIT_SETTINGS, type RateLimitSettings } from './rate-limit.options';
import type { ResolvedLimiter } from './resolve-limiter';

type ClientRequest = Parameters<typeof clientAddress>[0];
type SocketLike = { remoteAddress?: string };
type WsClient = { request?: ClientRequest; handshake?: { address?: string }; _socket?: SocketLike; conn?: { remoteAddress?: string } };

/**
 * Who a `@RateLimit` budget is counted per on a handler call, in each execution context — one place for the guard
 * and the advice:
 * - `key` given: `key(request, context)`, where `request` is the HTTP request (HTTP, and the HTTP request of a
 *   GraphQL operation), the payload (RPC) or the client socket (WebSocket);
 * - else `rateLimit.getTracker(context)` when configured;
 * - else the context's own client: the client address (HTTP, GraphQL), the connection (WebSocket; the address with
 *   `rateLimit.wsIdentity: 'address'`), or none on RPC, where the budget is the handler's (one per limiter name).
 * The limiter key is `rateLimit.generateKey(context, tracker, name)` when configured, else `<name>:<tracker>`.
 */
@Injectable()
export class RateLimitIdentity {
  private readonly socketAddresses = new WeakMap<object, string>();
  private readonly connectionIds = new WeakMap<object, string>();
  private readonly hops: number;
  private readonly ipv6Subnet: number;

  constructor(@Inject(RATE_LIMIT_SETTINGS) private readonly settings: RateLimitSettings) {
    this.hops = settings.trustProxyHops;
    this.ipv6Subnet = settings.ipv6Subnet;
  }

  /** The limiter key of a handler call (escaped and length-bounded later by the key builder). */
  keyOf(context: ExecutionContext, limiter: ResolvedLimiter): string | Promise<string> {
    const { key, name } = limiter;
    let tracker: string | Promise<string> | undefined;
    if (key !== undefined) {
      tracker = typeof key === 'function' ? Promise.resolve(key(this.requestOf(context), context)).then(String) : String(key);
    } else {
      tracker = this.trackerOf(context, name);
      if (tracker === undefined) return name;
    }
    return typeof tracker === 'string'
      ? this.generate(context, tracker, name)
      : tracker.then((value) => this.generate(context, value, name));
  }

  /** What a handler's `key` function receives first, per context. */
  requestOf(context: ExecutionContext): unknown {
    switch (context.getType<string>()) {
      case 'http':
        return context.switchToHttp().getRequest();
      case 'graphql':
        return graphqlRequest(context) ?? context.getArgByIndex(2);
      default:
        // RPC: the payload; WebSocket: the client socket.
        return context.getArgByIndex(0);
    }
  }

  private generate(context: ExecutionContext, tracker: string, name: string): string {
    const generateKey = this.settings.generateKey;
    return generateKey ? generateKey(context, tracker, name) : `${name}:${tracker}`;
  }

  private trackerOf(context: ExecutionContext, limiter: string): string | Promise<string> | undefined {
    const getTracker = this.settings.getTracker;
    if (getTracker) return getTracker(context);
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
      case 'rpc':
        return undefined;
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
    return clientAddress(request, this.hops, this.ipv6Subnet);
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
      );
    return this.addressOf({ socket: client._socket ?? { remoteAddress: client.conn?.remoteAddress ?? client.handshake?.address } });
  }
}

/** The HTTP request of a GraphQL operation, read by position (the third resolver argument is the GraphQL context). */
function graphqlRequest(context: ExecutionContext): ClientRequest | undefined {
  const gql = context.getArgByIndex<{ req?: ClientRequest; request?: ClientRequest; reply?: { request?: ClientRequest } } | undefined>(2);
  return gql?.req ?? gql?.request ?? gql?.reply?.request;
}

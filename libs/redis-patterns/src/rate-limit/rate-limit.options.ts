import type { ExecutionContext } from '@nestjs/common';
import {
  checkBoolean,
  checkConnectionName,
  checkKnownKeys,
  checkObject,
  checkOneOf,
  checkOptionalNumber,
  invalid,
  type SectionValidator,
} from '../core/options/option-checks';

/** Options of the `rateLimit` section of RedisPatternsModuleOptions. */
export interface RateLimitOptions {
  /** Name of the connection this pattern uses (default: the default connection). */
  connection?: string;
  /**
   * Default outage policy: allow calls when Redis cannot decide (default true; logged and counted). `false` fails
   * closed (`RateLimitDeniedError` with reason `unavailable`, HTTP 503). Each limiter may override it. It covers outages only: when Redis
   * refuses the limiter (`RedisRefusedError`: an ACL without scripting, a renamed command, a key of another type)
   * every decision fails closed (HTTP 503), whatever this and `inMemoryFallback` say.
   */
  failOpen?: boolean;
  /** Default: enforce the policies per instance in memory while Redis is unavailable (default false). */
  inMemoryFallback?: boolean;
  /** Most entries the in-memory fallback keeps (default 100000). */
  inMemoryMaxEntries?: number;
  /**
   * Number of trusted reverse proxies in front of the app (default 0: the socket address identifies the client and
   * `X-Forwarded-For` is ignored). With N, the client is the N-th address from the right of `X-Forwarded-For`,
   * without a port a proxy appended; an entry that is not an IP address counts under the socket address (logged).
   */
  trustProxyHops?: number;
  /** IPv6 clients are grouped by this prefix length (default 64: one customer network, one budget). */
  ipv6Subnet?: number;
  /** Also send `X-RateLimit-Limit/Remaining/Reset` (default false; the IETF `RateLimit` headers are always sent). */
  legacyHeaders?: boolean;
  /**
   * Who a `@RateLimit` without `key` counts a handler call per, in every context (default: the client address on
   * HTTP, GraphQL and WebSocket, the handler on RPC). E.g. the authenticated user, else the address (a constant such
   * as `'anonymous'` would put every anonymous caller in one budget; `undefined` or `''` is refused with
   * `RateLimitIdentityError`): `(context) => { const req = context.switchToHttp().getRequest(); return req.user?.id
   * ?? clientAddress(req, hops); }`.
   */
  getTracker?: (context: ExecutionContext) => string | Promise<string>;
  /**
   * The limiter key of a handler call from its tracker, as one key part (default: the two parts
   * `[limiter name, tracker]`, escaped separately). Must return a non-empty string.
   */
  generateKey?: (context: ExecutionContext, tracker: string, limiterName: string) => string;
  /**
   * The default identity of a WebSocket client: its address (default; a reconnect keeps its budget) or its
   * connection (`'connection'`: every new connection, so every reconnect, starts a fresh budget). With
   * `trustProxyHops` the address of a `ws`-adapter client cannot be read (no upgrade request is kept): give such
   * handlers a `key`, or choose `'connection'`.
   */
  wsIdentity?: 'connection' | 'address';
  /**
   * Exempts a handler call from every `@RateLimit` when it returns true (nothing is counted), e.g. an admin role or
   * a health checker on the loopback. Decide only on what a client cannot choose: headers (`User-Agent`, and
   * `req.ip` under Express' `trust proxy`) are the client's to set. For an address, read it as the limiter does:
   * `(context) => clientAddress(context.switchToHttp().getRequest(), hops) === '127.0.0.1'`. Applies to handlers
   * Nest calls, in every context; a provider method called directly has only its decorator's `skipIf`.
   */
  skipIf?: (context: ExecutionContext) => boolean | Promise<boolean>;
}

const KNOWN_KEYS = [
  'connection',
  'failOpen',
  'inMemoryFallback',
  'inMemoryMaxEntries',
  'trustProxyHops',
  'ipv6Subnet',
  'legacyHeaders',
  'getTracker',
  'generateKey',
  'wsIdentity',
  'skipIf',
] as const;

/** Validates the `rateLimit` section at startup; every error names the offending option. */
export const validateRateLimitOptions: SectionValidator = (value, path, context) => {
  const section = checkObject(value, path);
  checkKnownKeys(section, path, KNOWN_KEYS);
  checkConnectionName(section.connection, `${path}.connection`, context);
  checkBoolean(section.failOpen, `${path}.failOpen`);
  checkBoolean(section.inMemoryFallback, `${path}.inMemoryFallback`);
  checkBoolean(section.legacyHeaders, `${path}.legacyHeaders`);
  checkOptionalNumber(section.inMemoryMaxEntries, `${path}.inMemoryMaxEntries`, { min: 1, integer: true });
  checkOptionalNumber(section.trustProxyHops, `${path}.trustProxyHops`, { min: 0, max: 32, integer: true });
  checkOptionalNumber(section.ipv6Subnet, `${path}.ipv6Subnet`, { min: 1, max: 128, integer: true });
  for (const hook of ['getTracker', 'generateKey', 'skipIf'] as const) {
    if (section[hook] !== undefined && typeof section[hook] !== 'function')
      invalid(`${path}.${hook}`, 'a function of the execution context', section[hook]);
  }
  if (section.wsIdentity !== undefined) checkOneOf(section.wsIdentity, `${path}.wsIdentity`, ['connection', 'address']);
};

/** The `rateLimit` section with every default applied, resolved once at startup (frozen). */
export interface RateLimitSettings {
  readonly connection?: string;
  readonly failOpen: boolean;
  readonly inMemoryFallback: boolean;
  readonly inMemoryMaxEntries: number;
  readonly trustProxyHops: number;
  readonly ipv6Subnet: number;
  readonly legacyHeaders: boolean;
  readonly getTracker?: RateLimitOptions['getTracker'];
  readonly generateKey?: RateLimitOptions['generateKey'];
  readonly wsIdentity: 'connection' | 'address';
  readonly skipIf?: RateLimitOptions['skipIf'];
}

/** Injection token of the resolved {@link RateLimitSettings}. */
export const RATE_LIMIT_SETTINGS = Symbol('RateLimitSettings');

/** Applies the defaults to a validated `rateLimit` section. */
export function resolveRateLimitSettings(section: RateLimitOptions = {}): RateLimitSettings {
  return Object.freeze({
    connection: section.connection,
    failOpen: section.failOpen ?? true,
    inMemoryFallback: section.inMemoryFallback ?? false,
    inMemoryMaxEntries: section.inMemoryMaxEntries ?? 100_000,
    trustProxyHops: section.trustProxyHops ?? 0,
    ipv6Subnet: section.ipv6Subnet ?? 64,
    legacyHeaders: section.legacyHeaders ?? false,
    getTracker: section.getTracker,
    generateKey: section.generateKey,
    wsIdentity: section.wsIdentity ?? 'address',
    skipIf: section.skipIf,
  });
}

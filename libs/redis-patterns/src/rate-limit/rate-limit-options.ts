import {
  checkBoolean,
  checkConnectionName,
  checkKnownKeys,
  checkObject,
  checkOptionalNumber,
  type SectionValidator,
} from '../core/options/option-checks';

/** Options of the `rateLimit` section of RedisPatternsModuleOptions. */
export interface RateLimitOptions {
  /** Name of the connection this pattern uses (default: the default connection). */
  connection?: string;
  /**
   * Default outage policy: allow calls when Redis cannot decide (default true; logged and counted). `false` fails
   * closed (`RateLimitUnavailableError`, HTTP 503). Each limiter may override it.
   */
  failOpen?: boolean;
  /** Default: enforce the policies per instance in memory while Redis is unavailable (default false). */
  inMemoryFallback?: boolean;
  /** Most entries the in-memory fallback keeps (default 100000). */
  inMemoryMaxEntries?: number;
  /**
   * Number of trusted reverse proxies in front of the app (default 0: the socket address identifies the client and
   * `X-Forwarded-For` is ignored). With N, the client is the N-th address from the right of `X-Forwarded-For`.
   */
  trustProxyHops?: number;
  /** IPv6 clients are grouped by this prefix length (default 64: one customer network, one budget). */
  ipv6Subnet?: number;
  /** Also send `X-RateLimit-Limit/Remaining/Reset` (default false; the IETF `RateLimit` headers are always sent). */
  legacyHeaders?: boolean;
}

const KNOWN_KEYS = ['connection', 'failOpen', 'inMemoryFallback', 'inMemoryMaxEntries', 'trustProxyHops', 'ipv6Subnet', 'legacyHeaders'] as const;

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
};

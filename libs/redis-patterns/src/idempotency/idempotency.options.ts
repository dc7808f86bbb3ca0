import type { ExecutionContext } from '@nestjs/common';
import {
  checkBoolean,
  checkConnectionName,
  checkKnownKeys,
  checkObject,
  checkOptionalNumber,
  checkString,
  invalid,
  type SectionValidator,
} from '../core/options/option-checks';

/**
 * Who a caller is, for scoping idempotency keys: two callers sending the same key never share a stored result.
 * Receives what a handler's `key` receives — the HTTP request (HTTP; the HTTP request of a GraphQL operation), the
 * payload (RPC) or the client socket (WebSocket) — and Nest's execution context. `undefined` means "no identity".
 */
export type IdempotencyIdentity = (request: any, context: ExecutionContext) => string | undefined | Promise<string | undefined>;

/** Options of the `idempotency` section of RedisPatternsModuleOptions. */
export interface IdempotencyOptions {
  /** Name of the connection this pattern uses (default: the default connection). */
  connection?: string;
  /** How long a completed call's result is kept and replayed, in ms, when `@Idempotent` gives none (default 24 h). */
  defaultTtlMs?: number;
  /**
   * TTL of the in-progress record of a running first call, in ms (default 30000); refreshed every third of it while
   * the call runs, so only a process that died (or lost Redis) lets it expire and a retry run. At most
   * `defaultTtlMs`.
   */
  lockTtlMs?: number;
  /** How long a duplicate waits for a running first call before a 409, in ms (default 10000; `@Idempotent` may override). */
  defaultWaitMs?: number;
  /** The request header carrying the key on HTTP handlers (default `Idempotency-Key`, the IETF draft's name). */
  headerName?: string;
  /** The response header set to `true` on a replayed response (default `Idempotent-Replayed`). */
  replayedHeader?: string;
  /**
   * Response headers stored with a result and replayed with it (case-insensitive; default `content-type`,
   * `content-language`, `content-location`, `content-disposition`, `location`, `link`, `etag`, `last-modified`).
   * `set-cookie` and framing headers are refused: a replay must never hand one client another client's cookie.
   */
  replayHeaders?: string[];
  /**
   * When Redis cannot answer the claim: `false` (default) refuses the call (`IdempotencyNotClaimedError` with reason `unavailable`, HTTP
   * 503) rather than risk running it twice; `true` runs it without the guarantee (logged, at most every 10 s).
   */
  failOpen?: boolean;
  /**
   * Default caller identity of every `@Idempotent` handler (see {@link IdempotencyIdentity}); none by default, and
   * then each HTTP handler without its own `identity` is warned about at startup (every caller shares its keys).
   * `false` says the key space is shared on purpose.
   */
  identity?: IdempotencyIdentity | false;
  /**
   * The largest record kept for replay, in bytes (the encoded result with its status and headers; default the
   * cache's `maxValueBytes`, 512 KiB unless set). A larger result is returned to its caller but not stored: the
   * claim is released, so a retry runs the operation again, and a warning is logged (at most every 10 s).
   */
  maxRecordBytes?: number;
}

/** The `idempotency` section with every default applied, resolved once at startup (frozen). */
export interface IdempotencySettings {
  readonly connection?: string;
  readonly defaultTtlMs: number;
  readonly lockTtlMs: number;
  readonly defaultWaitMs: number;
  /** Lower-case, as Node's request headers are. */
  readonly headerName: string;
  readonly replayedHeader: string;
  /** Lower-case. */
  readonly replayHeaders: readonly string[];
  readonly failOpen: boolean;
  readonly identity?: IdempotencyIdentity | false;
  readonly maxRecordBytes: number;
}

/** Injection token of the resolved {@link IdempotencySettings}. */
export const IDEMPOTENCY_SETTINGS = Symbol('IdempotencySettings');

export const DEFAULT_REPLAY_HEADERS: readonly string[] = [
  'content-type',
  'content-language',
  'content-location',
  'content-disposition',
  'location',
  'link',
  'etag',
  'last-modified',
];

// Never replayed: a cookie belongs to one client and one session; framing headers describe one message (Node sets
// them for the replayed one); hop-by-hop headers describe one connection.
const REFUSED_REPLAY_HEADERS = new Set([
  'set-cookie',
  'set-cookie2',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'trailer',
]);

const KNOWN_KEYS = [
  'connection',
  'defaultTtlMs',
  'lockTtlMs',
  'defaultWaitMs',
  'headerName',
  'replayedHeader',
  'replayHeaders',
  'failOpen',
  'identity',
  'maxRecordBytes',
] as const;

/** The cache's own default of `maxValueBytes`, used when neither limit is set. */
const DEFAULT_MAX_RECORD_BYTES = 512 * 1024;

const DEFAULT_TTL_MS = 24 * 3600 * 1000;
const MS = { integer: true, unit: 'ms' } as const;
// RFC 9110 field-name (token) characters.
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const HEADER_RULE = { pattern: HEADER_NAME, describe: 'an HTTP header name (token characters)' };

/** Validates the `idempotency` section at startup; every error names the offending option. */
export const validateIdempotencyOptions: SectionValidator = (value, path, context) => {
  const section = checkObject(value, path);
  checkKnownKeys(section, path, KNOWN_KEYS);
  checkConnectionName(section.connection, `${path}.connection`, context);
  const ttlMs = checkOptionalNumber(section.defaultTtlMs, `${path}.defaultTtlMs`, { ...MS, min: 1 }) ?? DEFAULT_TTL_MS;
  checkOptionalNumber(section.lockTtlMs, `${path}.lockTtlMs`, { ...MS, min: 30, max: ttlMs });
  checkOptionalNumber(section.defaultWaitMs, `${path}.defaultWaitMs`, { ...MS, min: 0 });
  if (section.headerName !== undefined) checkString(section.headerName, `${path}.headerName`, HEADER_RULE);
  if (section.replayedHeader !== undefined) {
    const replayed = checkString(section.replayedHeader, `${path}.replayedHeader`, HEADER_RULE);
    if (REFUSED_REPLAY_HEADERS.has(replayed.toLowerCase()))
      invalid(`${path}.replayedHeader`, 'a header name other than set-cookie and framing headers', section.replayedHeader);
  }
  if (section.replayHeaders !== undefined) {
    if (!Array.isArray(section.replayHeaders)) invalid(`${path}.replayHeaders`, 'an array of header names', section.replayHeaders);
    section.replayHeaders.forEach((name: unknown, i) => {
      const where = `${path}.replayHeaders[${i}]`;
      checkString(name, where, HEADER_RULE);
      if (REFUSED_REPLAY_HEADERS.has((name as string).toLowerCase()))
        invalid(where, 'a header safe to replay (not set-cookie, content-length or a hop-by-hop header)', name);
    });
  }
  checkBoolean(section.failOpen, `${path}.failOpen`);
  if (section.identity !== undefined && section.identity !== false && typeof section.identity !== 'function')
    invalid(`${path}.identity`, 'false or a function of (request, context) returning the caller identity', section.identity);
  checkOptionalNumber(section.maxRecordBytes, `${path}.maxRecordBytes`, { integer: true, min: 1 });
};

/**
 * Applies the defaults to a validated `idempotency` section; `cacheMaxValueBytes` is the `cache.maxValueBytes`
 * option, the default of `maxRecordBytes`.
 */
export function resolveIdempotencySettings(section: IdempotencyOptions = {}, cacheMaxValueBytes?: number): IdempotencySettings {
  return Object.freeze({
    connection: section.connection,
    defaultTtlMs: section.defaultTtlMs ?? DEFAULT_TTL_MS,
    lockTtlMs: section.lockTtlMs ?? Math.min(30_000, section.defaultTtlMs ?? DEFAULT_TTL_MS),
    defaultWaitMs: section.defaultWaitMs ?? 10_000,
    headerName: (section.headerName ?? 'Idempotency-Key').toLowerCase(),
    replayedHeader: section.replayedHeader ?? 'Idempotent-Replayed',
    replayHeaders: Object.freeze((section.replayHeaders ?? DEFAULT_REPLAY_HEADERS).map((name) => name.toLowerCase())),
    failOpen: section.failOpen ?? false,
    identity: section.identity,
    maxRecordBytes: section.maxRecordBytes ?? cacheMaxValueBytes ?? DEFAULT_MAX_RECORD_BYTES,
  });
}

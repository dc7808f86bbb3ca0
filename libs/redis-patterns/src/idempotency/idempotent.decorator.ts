import { createAdvisedDecorator } from '../core/advice/create-advised-decorator';
import type { IdempotencyIdentity } from './idempotency.options';
import { IdempotentAdvisor } from './idempotent.advisor';

/** Options of {@link Idempotent}. */
export interface IdempotentOptions {
  /**
   * The idempotency key. On an HTTP handler it defaults to the `Idempotency-Key` header (`idempotency.headerName`);
   * a function there receives `(request, context)`. Required everywhere else: on a provider method a function of
   * the method's arguments, on an RPC, WebSocket or GraphQL handler a function of `(request, context)` (the payload,
   * the client socket, or the GraphQL operation's HTTP request). A handler called directly (not by Nest) passes its
   * arguments. `undefined`, `null` or `''` mean "no key".
   */
  key?: string | ((...args: any[]) => unknown);
  /** A call without a key is refused (`InvalidIdempotencyKeyError`, HTTP 400) instead of running unguarded (default false). */
  required?: boolean;
  /** How long the result is kept and replayed, in ms (default `idempotency.defaultTtlMs`, 24 h). */
  ttlMs?: number;
  /**
   * What makes two calls "the same request": a key reused with another fingerprint is refused (HTTP 422). Default: on
   * HTTP the method, URL and a hash of the body; elsewhere a hash of the arguments. A function receives what `key`
   * receives and returns any value (hashed); `false` turns the check off.
   */
  fingerprint?: false | ((...args: any[]) => unknown);
  /** A duplicate of a running call waits for its result (`'wait'`, default) or is refused at once with 409 (`'reject'`). */
  onConcurrent?: 'wait' | 'reject';
  /** How long a duplicate waits for the running call, in ms, before a 409 (default `idempotency.defaultWaitMs`). */
  waitMs?: number;
  /**
   * Store failures too: an HttpException the method throws (and, on HTTP, a returned 5xx) is replayed to duplicates.
   * Default false: a failed call stores nothing, and a retry runs again. Other errors are never stored.
   */
  storeFailures?: boolean;
  /**
   * Who the caller is, on handlers: keys are scoped by it (default `idempotency.identity`). An HTTP handler with no
   * identity shares its keys between every caller and is warned about at startup; `false` says that is intended.
   * When the function returns `undefined`, `null` or `''` for a request with a key, the request is refused
   * (`MissingIdempotencyIdentityError`, HTTP 400) instead of running in the shared key space.
   */
  identity?: IdempotencyIdentity | false;
  /** The namespace of the keys (default `<Class>.<method>`): give two methods one scope to share their keys. */
  scope?: string;
  /** Run without the guarantee when Redis cannot answer (default `idempotency.failOpen`, false: 503). */
  failOpen?: boolean;
}

/**
 * Makes a method idempotent per key (the IETF `Idempotency-Key` draft on HTTP): the first call runs and its result —
 * on HTTP its status, safe headers and body — is stored; a later duplicate gets it replayed (with
 * `Idempotent-Replayed: true`), a concurrent one waits for it or gets 409, a reused key with another payload 422.
 * Failures are not stored, so a retry runs again. Works on controller handlers and provider methods.
 *
 * @example
 * @Post('payments')
 * @Idempotent({ required: true, identity: (req) => req.user.id })
 * pay(@Body() payment: PaymentDto) { … }
 *
 * @Idempotent({ key: (event: OrderPlaced) => event.id, ttlMs: 3_600_000 })
 * async onOrderPlaced(event: OrderPlaced) { … }
 */
export function Idempotent(options: IdempotentOptions = {}): MethodDecorator {
  return createAdvisedDecorator(IdempotentAdvisor, options);
}

import { type ExecutionContext, Inject, Injectable, Logger, type LoggerService } from '@nestjs/common';
import { RESOLVED_OPTIONS } from '../redis-patterns.constants';
import type { ResolvedRedisPatternsOptions } from '../redis-patterns.options';
import { handlerData } from '../core/advice/handler-call';
import type { AdvisedMethod, MethodAdvice, MethodAdvisor } from '../core/advice/method-advice.interface';
import { checkBoolean, checkKnownKeys, checkObject, checkOneOf, checkOptionalNumber, invalid } from '../core/options/option-checks';
import { fingerprintOf } from './fingerprint';
import { applyReplay, assertReplayableHandler, captureHeaders, httpFingerprint, requestHeader, responseStatus } from './http-exchange';
import { checkKeyResult, parseIdempotencyKeyHeader } from './idempotency-keys';
import { IDEMPOTENCY_SETTINGS, type IdempotencySettings } from './idempotency.options';
import { IdempotencyRuntime } from './idempotency.runtime';
import { httpExceptionOutcome, type IdempotentCall, replayOutcome } from './idempotent-call';
import type { IdempotentOptions } from './idempotent.decorator';
import { InvalidIdempotencyKeyError } from './invalid-idempotency-key.error';
import { MissingIdempotencyIdentityError } from './missing-idempotency-identity.error';

const KNOWN_KEYS = [
  'key',
  'required',
  'ttlMs',
  'fingerprint',
  'onConcurrent',
  'waitMs',
  'storeFailures',
  'identity',
  'scope',
  'failOpen',
] as const;

type Fn = (...args: unknown[]) => unknown;

/**
 * The behaviour of `@Idempotent`. Options are checked here, once per method at bootstrap (a bad option fails
 * startup naming it). Per call: find the key (the header on HTTP, `key` elsewhere), the caller's identity and the
 * fingerprint, then let IdempotencyRuntime claim, wait, replay or refuse; on HTTP a first call's status and safe
 * headers are stored with its result, and replayed with it.
 *
 * Identity: an HTTP handler with none (neither its own `identity` nor `idempotency.identity`) shares one key space
 * between all callers — any caller reusing a key gets the stored response — so it is warned about at startup;
 * `identity: false` says that is intended. An identity function that finds no caller refuses the request
 * (MissingIdempotencyIdentityError, 400): falling back to the shared space would undo the scoping it asked for.
 */
@Injectable()
export class IdempotentAdvisor implements MethodAdvisor<IdempotentOptions> {
  private readonly logger: LoggerService;

  constructor(
    private readonly runtime: IdempotencyRuntime,
    @Inject(IDEMPOTENCY_SETTINGS) private readonly settings: IdempotencySettings,
    @Inject(RESOLVED_OPTIONS) moduleOptions: ResolvedRedisPatternsOptions,
  ) {
    this.logger = moduleOptions.logger ?? new Logger('RedisPatterns:Idempotency');
  }

  prepare(raw: IdempotentOptions, method: AdvisedMethod): MethodAdvice {
    const path = `@Idempotent(${method.className}.${method.methodName})`;
    const options = checkObject(raw ?? {}, path) as IdempotentOptions & Record<string, unknown>;
    checkKnownKeys(options, path, KNOWN_KEYS);
    const kind = method.handlerKind;
    const { key, fingerprint, identity } = options;
    if (key === undefined && kind !== 'http')
      invalid(`${path}.key`, 'a function returning the idempotency key (required outside HTTP handlers, where no header is read)', key);
    if (key !== undefined && typeof key !== 'function' && (typeof key !== 'string' || key.length === 0))
      invalid(`${path}.key`, 'a non-empty string or a function returning the idempotency key', key);
    if (fingerprint !== undefined && fingerprint !== false && typeof fingerprint !== 'function')
      invalid(`${path}.fingerprint`, 'false or a function returning what identifies the payload', fingerprint);
    if (identity !== undefined && ((typeof identity !== 'function' && identity !== false) || !kind))
      invalid(
        `${path}.identity`,
        kind ? 'false or a function of (request, context)' : 'nothing on a provider method (put the caller in key(...args))',
        identity,
      );
    if (options.scope !== undefined && (typeof options.scope !== 'string' || options.scope.length === 0))
      invalid(`${path}.scope`, 'a non-empty string', options.scope);
    const ttlMs = checkOptionalNumber(options.ttlMs, `${path}.ttlMs`, { integer: true, min: 1, unit: 'ms' }) ?? this.settings.defaultTtlMs;
    const waitMs =
      checkOptionalNumber(options.waitMs, `${path}.waitMs`, { integer: true, min: 0, unit: 'ms' }) ?? this.settings.defaultWaitMs;
    const onConcurrent =
      options.onConcurrent === undefined ? 'wait' : checkOneOf(options.onConcurrent, `${path}.onConcurrent`, ['wait', 'reject']);
    const required = checkBoolean(options.required, `${path}.required`) ?? false;
    const storeFailures = checkBoolean(options.storeFailures, `${path}.storeFailures`) ?? false;
    const failOpen = checkBoolean(options.failOpen, `${path}.failOpen`) ?? this.settings.failOpen;
    if (kind === 'http') assertReplayableHandler(method);

    const scope = options.scope ?? `${method.className}.${method.methodName}`;
    const label = `${method.className}.${method.methodName}`;
    const keyFn = typeof key === 'function' ? (key as Fn) : key === undefined ? undefined : () => key;
    const chosenIdentity = identity ?? this.settings.identity;
    const identityFn = typeof chosenIdentity === 'function' ? (chosenIdentity as Fn) : undefined;
    if (kind === 'http' && chosenIdentity === undefined)
      this.logger.warn(
        `${path} has no identity: every caller shares its idempotency keys, so a caller reusing another's key gets that ` +
          `caller's stored response. Set identity (per handler or idempotency.identity), or identity: false if the keys are shared on purpose.`,
      );
    const { headerName, replayHeaders, replayedHeader } = this.settings;
    const base = { scope: label, ttlMs, onConcurrent, waitMs, failOpen, failureOutcome: storeFailures ? httpExceptionOutcome : undefined };

    return async (invocation, proceed) => {
      const { context, http, args } = invocation;
      // The functions' arguments: (request, context) on a handler call, the method's arguments on a direct call.
      const request = context && args[0];
      const found = keyFn
        ? checkKeyResult(await keyFn(...args), context ? 'key(request, context)' : 'key(...args)')
        : http && parseIdempotencyKeyHeader(requestHeader(request, headerName), headerName);
      if (found === undefined) {
        if (required) throw new InvalidIdempotencyKeyError(keyFn ? 'key' : headerName, 'missing');
        return proceed();
      }
      const caller = context && identityFn ? checkKeyResult(await identityFn(request, context), 'identity(request, context)') : undefined;
      if (context && identityFn && caller === undefined) throw new MissingIdempotencyIdentityError(label);
      const call: IdempotentCall = {
        ...base,
        recordKey: this.runtime.recordKey(scope, caller, found),
        fingerprint: await fingerprintFor(fingerprint, args, http ? request : undefined, kind, context),
      };
      const run = await this.runtime.run(call, async () => {
        const value = await proceed();
        if (!http) return { value, outcome: { kind: 'value', body: value } };
        const status = responseStatus(http.response);
        // A returned 5xx is a failure: not stored unless asked, so a retry runs again.
        if (status >= 500 && !storeFailures) return { value, outcome: undefined };
        return { value, outcome: { kind: 'value', status, headers: captureHeaders(http.response, replayHeaders), body: value } };
      });
      if (!run.replayed) return run.value;
      if (http) applyReplay(http, run.outcome.kind === 'value' ? run.outcome.status : undefined, run.outcome.headers, replayedHeader);
      return replayOutcome(run.outcome);
    };
  }
}

/** The fingerprint of a call: none, the user's function (hashed), or the default of its kind. */
async function fingerprintFor(
  option: IdempotentOptions['fingerprint'],
  inputs: unknown[],
  httpRequest: unknown,
  kind: AdvisedMethod['handlerKind'],
  context: ExecutionContext | undefined,
): Promise<string> {
  if (option === false) return '';
  if (option) return fingerprintOf(await (option as Fn)(...inputs));
  if (httpRequest) return httpFingerprint(httpRequest);
  // The call's data only: a socket, an RPC context or a GraphQL context differs per call and is no payload.
  if (context && kind) return fingerprintOf(...handlerData(context));
  return fingerprintOf(...inputs);
}

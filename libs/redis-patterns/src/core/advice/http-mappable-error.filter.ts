import { type ArgumentsHost, Catch, type ExceptionFilter, Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { throwError } from 'rxjs';
import { type HttpMappableError, HttpMappableDomainError } from '../../errors/http-mappable';
import { AnsweredRedisPatternsError } from '../../errors/redis-patterns.error';
import { toContextError } from './context-errors';

/**
 * Registered by the module as a global exception filter: a library error that knows its answer (or an application's
 * own `HttpMappableDomainError`) (409 on lock
 * contention, 429 on a rate limit, 503 when a fail-closed pattern has no Redis), thrown by a decorated provider
 * under an undecorated handler, reaches the caller in the handler's transport (see context-errors.ts): an HTTP
 * status with headers, an RPC error reply, a GraphQL error — never a rethrow that leaves an RPC caller waiting.
 * (Decorated handlers map their own errors before Nest's filters run; Nest gives WebSocket gateways, and
 * microservices connected without `inheritAppConfig`, no global filters.) A filter costs nothing until something
 * throws.
 */
@Catch(AnsweredRedisPatternsError, HttpMappableDomainError)
@Injectable()
export class HttpMappableErrorFilter implements ExceptionFilter<HttpMappableError> {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  /**
   * Answers with the error's `toHttpResponse()`: on HTTP, replies with its status, headers and body through the HTTP
   * adapter; on RPC, returns an Observable that errors with `{ status, error, message, retryAfterMs }`; elsewhere,
   * returns the error in the context's form (a GraphQL error for a field).
   */
  catch(error: HttpMappableError, host: ArgumentsHost): unknown {
    switch (host.getType<string>()) {
      case 'http': {
        const adapter = this.adapterHost.httpAdapter;
        const response = host.switchToHttp().getResponse<unknown>();
        const spec = error.toHttpResponse();
        for (const [name, value] of Object.entries(spec.headers ?? {})) adapter.setHeader(response, name, value);
        adapter.reply(response, spec.body, spec.status);
        return undefined;
      }
      case 'rpc': {
        // Nest's RPC filters answer with an Observable that errors with the reply's error payload.
        const mapped = toContextError(error, host) as { getError(): unknown };
        return throwError(() => mapped.getError());
      }
      default:
        // A GraphQL field's result is what its filter returns: an error there is the field's error.
        return toContextError(error, host);
    }
  }
}

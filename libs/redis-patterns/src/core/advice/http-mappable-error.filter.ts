import { type ArgumentsHost, Catch, type ExceptionFilter, Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { HttpMappableDomainError } from '../../errors/http-mappable';

/**
 * Registered by the module as a global exception filter: a library error that knows its HTTP answer (409 on lock
 * contention, 429 on a rate limit, 503 when a fail-closed pattern has no Redis), thrown on an HTTP request by a
 * decorated provider under an undecorated handler, gets that status, headers and body. (Decorated handlers map
 * their own errors before Nest's filters run.) A filter costs nothing until something throws.
 */
@Catch(HttpMappableDomainError)
@Injectable()
export class HttpMappableErrorFilter implements ExceptionFilter<HttpMappableDomainError> {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  catch(error: HttpMappableDomainError, host: ArgumentsHost): void {
    if (host.getType() !== 'http') throw error;
    const adapter = this.adapterHost.httpAdapter;
    const response = host.switchToHttp().getResponse<unknown>();
    const spec = error.toHttpResponse();
    for (const [name, value] of Object.entries(spec.headers ?? {})) adapter.setHeader(response, name, value);
    adapter.reply(response, spec.body, spec.status);
  }
}

import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import { catchError, type Observable, throwError } from 'rxjs';
import { toHttpCall } from './http-call';
import { toHttpError } from './http-error-mapping';

/**
 * Registered by the module as a global interceptor. On HTTP it turns domain errors that know their HTTP answer
 * (409 on lock contention, 429 on a rate limit …), wherever they were thrown — a decorated provider called by an
 * undecorated handler included —, into HttpExceptions with those headers. Elsewhere (microservices, GraphQL
 * resolvers …) it is a pass-through.
 *
 * It carries no per-request context: the advice of a decorated handler gets the HTTP call through a hidden route
 * parameter (see `http-call-param.ts`), so the success path costs one operator and no async hooks.
 */
@Injectable()
export class HttpEdgeInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    return next.handle().pipe(
      catchError((error: unknown) => {
        const http = context.switchToHttp();
        const mapped = toHttpError(error, toHttpCall(http.getRequest(), http.getResponse()));
        return throwError(() => mapped);
      }),
    );
  }
}

import { type CallHandler, type ExecutionContext, HttpException, Injectable, type NestInterceptor } from '@nestjs/common';
import { catchError, Observable, throwError } from 'rxjs';
import { isHttpMappableError } from '../../errors/http-mappable';
import { httpCallStorage, toHttpCall } from './http-call';

/**
 * Registered by the module as a global interceptor. On HTTP it runs the handler inside the request's
 * {@link HttpCall} (so advice can set headers such as `X-Cache`) and turns domain errors that know their HTTP answer
 * (409 on lock contention, 429 on a rate limit …), wherever they were thrown, into HttpExceptions with those
 * headers. Elsewhere (microservices, GraphQL resolvers …) it is a pass-through.
 */
@Injectable()
export class HttpEdgeInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const http = context.switchToHttp();
    const call = toHttpCall(http.getRequest(), http.getResponse());
    // The router invokes the handler when the returned observable is subscribed, so the storage must be entered
    // at subscription time for the handler (and its advice) to see it.
    return new Observable((subscriber) =>
      httpCallStorage.run(call, () =>
        next
          .handle()
          .pipe(
            catchError((error: unknown) => {
              if (!isHttpMappableError(error)) return throwError(() => error);
              const spec = error.toHttpResponse();
              for (const [name, value] of Object.entries(spec.headers ?? {})) call.setHeader(name, value);
              return throwError(() => new HttpException(spec.body, spec.status, { cause: error }));
            }),
          )
          .subscribe(subscriber),
      ),
    );
  }
}

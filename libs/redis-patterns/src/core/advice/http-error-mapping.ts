import { HttpException } from '@nestjs/common';
import { isHttpMappableError } from '../../errors/http-mappable';
import type { HttpCall } from './http-call';

/**
 * The error an HTTP handler should throw for `error`: a domain error that knows its HTTP answer (409 on lock
 * contention, 429 on a rate limit …) becomes an HttpException with that status and body, its headers set on the
 * response; anything else is returned unchanged (Nest's exception filters then handle it as usual).
 */
export function toHttpError(error: unknown, call: HttpCall): unknown {
  if (!isHttpMappableError(error)) return error;
  const spec = error.toHttpResponse();
  const headers = spec.headers;
  if (headers) for (const name of Object.keys(headers)) call.setHeader(name, headers[name]);
  return new HttpException(spec.body, spec.status, { cause: error });
}

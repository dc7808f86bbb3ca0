import { Injectable, type NestMiddleware } from '@nestjs/common';

/**
 * Counts the HTTP requests this app has answered, for the status page's "Requests" card. The library's metrics
 * cover the patterns, not HTTP: this is the one number the page takes from the sample itself.
 */
@Injectable()
export class RequestCounter implements NestMiddleware {
  answered = 0;

  use(_request: unknown, response: { once(event: 'finish', cb: () => void): void }, next: () => void): void {
    response.once('finish', () => this.answered++);
    next();
  }
}

import { Inject, Injectable, Logger } from '@nestjs/common';
import { RESOLVED_OPTIONS } from '../../redis-patterns.constants';
import { ThrottledLog } from '../logging/throttled-log';
import type { ResolvedCoreOptions } from '../options/resolve-options';

/**
 * Where a microservice event denied by a decorator is reported: an event has no caller to answer, so its denial is a
 * warning in the module's logger, at most one every 10 s (a flood of denied events is one line plus a count).
 */
@Injectable()
export class DroppedEventLog {
  private readonly log: ThrottledLog;

  constructor(@Inject(RESOLVED_OPTIONS) options: ResolvedCoreOptions) {
    this.log = new ThrottledLog(options.logger ?? new Logger('RedisPatterns'));
  }

  readonly report = (message: string): void => this.log.warn(message);
}

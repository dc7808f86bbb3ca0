import { BadRequestException, Body, Controller, HttpCode, type MessageEvent, Post, Sse } from '@nestjs/common';
import { StreamsService } from 'nestjs-redis-patterns/messaging';
import { map, type Observable } from 'rxjs';
import { NotificationsHub } from './notifications.hub';
import { EVENTS_STREAM } from './visitor-stats.consumer';

interface EventBody {
  type?: unknown;
  visitor?: unknown;
}

@Controller('events')
export class EventsController {
  constructor(
    private readonly streams: StreamsService,
    private readonly hub: NotificationsHub,
  ) {}

  /** Appends to a capped stream (MAXLEN ~ 100k) and returns at once; the consumer group does the work. */
  @Post()
  @HttpCode(202)
  async track(@Body() body: EventBody): Promise<{ id: string }> {
    const type = body?.type ?? 'page_view';
    if (typeof type !== 'string' || !/^[a-z_]{1,32}$/.test(type))
      throw new BadRequestException('type must be 1–32 characters of a-z and _');
    if (body?.visitor !== undefined && (typeof body.visitor !== 'string' || body.visitor.length > 128)) {
      throw new BadRequestException('visitor must be a string of at most 128 characters');
    }
    const id = await this.streams.add(
      EVENTS_STREAM,
      { type, visitor: (body.visitor as string | undefined) ?? '', at: new Date().toISOString() },
      { maxLength: 100_000 },
    );
    return { id };
  }

  /** Server-sent events: the notifications published on Redis by any instance. */
  @Sse('stream')
  stream(): Observable<MessageEvent> {
    return this.hub.notifications$.pipe(map((notification) => ({ data: notification, type: 'notification' })));
  }
}

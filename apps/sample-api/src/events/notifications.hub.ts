import { Injectable } from '@nestjs/common';
import { OnRedisMessage } from 'nestjs-redis-patterns/messaging';
import { Subject } from 'rxjs';

export const NOTIFICATIONS_CHANNEL = 'notifications';

export interface Notification {
  type: string;
  message: string;
  at: string;
}

/**
 * Receives notifications published by any instance of the API (pub/sub: fire-and-forget, every subscriber gets
 * each message once while it is connected) and fans them out to this instance's SSE clients.
 */
@Injectable()
export class NotificationsHub {
  readonly notifications$ = new Subject<Notification>();

  @OnRedisMessage(NOTIFICATIONS_CHANNEL)
  onNotification(notification: Notification): void {
    this.notifications$.next(notification);
  }
}

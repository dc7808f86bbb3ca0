import type { INestApplication, LoggerService } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { RedisPatternsModule } from 'nestjs-redis-patterns';
import { PubSubService } from 'nestjs-redis-patterns/messaging';
import { type AclUser, createAclUser } from '../connections/acl-user';
import { uniquePrefix, waitFor } from '../../support/redis-env';

/** Collects what the module logs at warn level. */
class WarnLog implements LoggerService {
  readonly warnings: string[] = [];
  log(): void {}
  error(): void {}
  debug(): void {}
  verbose(): void {}
  warn(message: unknown): void {
    this.warnings.push(String(message));
  }
}

// ioredis restores a subscriber's channels itself without handling the replies: a refusal after a reconnect was an
// unhandled rejection, which ends a Node process (and fails this spec). The store restores them, handled.
describe('pub/sub re-subscription refused after a reconnect', () => {
  let user: AclUser;
  let app: INestApplication;
  const log = new WarnLog();
  const prefix = uniquePrefix('pubsub-resub');

  beforeAll(async () => {
    user = await createAclUser('pubsub-resub', ['~*', '&*', '+@all']);
    const moduleRef = await Test.createTestingModule({
      imports: [RedisPatternsModule.forRoot({ connection: user.url, keyPrefix: prefix, logger: log })],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.init();
  });

  afterAll(async () => {
    await app?.close();
    await user?.remove();
  });

  it('reports the refused channel and keeps the ones still allowed', async () => {
    const pubsub = app.get(PubSubService);
    const allowed: unknown[] = [];
    const onPattern: string[] = [];
    await pubsub.subscribe('open1', (m) => void allowed.push(m));
    await pubsub.psubscribe('open*', (_m, channel) => void onPattern.push(channel));
    await pubsub.subscribe('secret', () => undefined);

    // Redis 7 disconnects a subscriber whose channel permissions were revoked; the reconnect finds `secret` refused.
    // PSUBSCRIBE needs the pattern itself allowed, literally: `&<raw pattern>` allows both.
    await user.change(['resetchannels', `&${prefix}:pubsub:open*`]);
    await waitFor(
      () => log.warnings.some((line) => line.includes('could not re-subscribe') && line.includes('NOPERM')),
      10_000,
      () => `a warning naming the refused subscription; got ${JSON.stringify(log.warnings)}`,
    );

    const seen = allowed.length + onPattern.length;
    let i = 0;
    await waitFor(
      async () => {
        await pubsub.publish('open1', { n: i++ }).catch(() => 0);
        return allowed.length > 0 && onPattern.length > 0 && allowed.length + onPattern.length > seen;
      },
      10_000,
      () =>
        `delivery on the channel and the pattern still allowed; got ${allowed.length}, ${onPattern.length}; ${JSON.stringify(log.warnings)}`,
    );
    expect(onPattern.every((channel) => channel === 'open1')).toBe(true);
  });
});

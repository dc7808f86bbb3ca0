import { Injectable, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { InvalidArgumentError, RedisPatternsModule } from 'nestjs-redis-patterns';
import { OnRedisMessage, PubSubService, type Subscription } from 'nestjs-redis-patterns/messaging';
import { type BackendName, connectionOf } from '../../support/backends';
import { uniquePrefix, waitFor } from '../../support/redis-env';

// A channel name given to subscribe() may come from a request (`room:${room}`): whatever it holds, it names one channel.

@Injectable()
class DeclaredListener {
  readonly received: string[] = [];

  // Declared in code, glob characters and all: a pattern, as it always was.
  @OnRedisMessage('declared:*')
  onDeclared(_message: unknown, channel: string): void {
    this.received.push(channel);
  }
}

/** Names that are globs, escapes or whitespace to somebody: each must reach its own subscriber only. */
const HOSTILE_NAMES = [
  '*',
  'room:*',
  '?',
  'room:?',
  '[a-z]',
  'room:[a-z]',
  '[',
  ']',
  '[]',
  'a\\b',
  '\\*',
  '%2A',
  '%3A',
  'a%b',
  'nbsp\u00a0name',
  'ideographic\u3000space',
  'line\u2028sep',
  'tab\tname',
  'café ☕',
];

/** Channels a hostile name would reach were it a glob (or were escapes decoded twice). */
const DECOYS = ['room:1', 'room:a', 'a', 'z', 'x', 'ab', 'a\\\\b', 'room', '%', ':', 'nbsp name', 'ideographic space'];

describe.each<BackendName>(['memory', 'standalone', 'cluster'])('PubSubService with hostile channel names on %s', (backend) => {
  let app: INestApplication;
  let pubsub: PubSubService;
  const prefix = uniquePrefix(`ps-hostile-${backend}`);
  // PUBLISH counts the subscriptions of the node that took it; on a cluster ours may sit on another node.
  const receivers = (n: number) => (backend === 'cluster' ? [0, n] : [n]);
  const subscriptions: Subscription[] = [];

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [RedisPatternsModule.forRoot({ connection: connectionOf(backend), keyPrefix: prefix })],
      providers: [DeclaredListener],
    }).compile();
    app = moduleRef.createNestApplication();
    await app.init();
    pubsub = app.get(PubSubService);
  });

  afterEach(async () => {
    await Promise.all(subscriptions.splice(0).map((sub) => sub.unsubscribe()));
  });

  afterAll(async () => {
    await app?.close();
  });

  async function listen(subscribing: Promise<Subscription>): Promise<Subscription> {
    const sub = await subscribing;
    subscriptions.push(sub);
    return sub;
  }

  it('subscribe("room:*") is the literal channel "room:*": it never receives "room:1"', async () => {
    const got: string[] = [];
    const sub = await listen(pubsub.subscribe('room:*', (_m, channel) => void got.push(channel)));
    expect(sub).toMatchObject({ channel: 'room:*', pattern: false });
    expect(await pubsub.publish('room:1', 'other room')).toBe(0);
    await pubsub.publish('room:a', 'other room');
    expect(receivers(1)).toContain(await pubsub.publish('room:*', 'this room'));
    // Messages of one publisher arrive in order: had "room:1" been delivered, it would be here before "room:*".
    await waitFor(
      () => got.includes('room:*'),
      5000,
      () => `the literal channel's message, got ${JSON.stringify(got)}`,
    );
    expect(got).toEqual(['room:*']);
  });

  it('psubscribe("room:*") and subscribe("room:*", h, { pattern: true }) are patterns', async () => {
    const viaPsubscribe: string[] = [];
    const viaOption: string[] = [];
    const a = await listen(pubsub.psubscribe('room:*', (_m, channel) => void viaPsubscribe.push(channel)));
    const b = await listen(pubsub.subscribe('room:*', (_m, channel) => void viaOption.push(channel), { pattern: true }));
    expect(a).toMatchObject({ channel: 'room:*', pattern: true });
    expect(b).toMatchObject({ channel: 'room:*', pattern: true });
    // Both handlers share one PSUBSCRIBE: the message is received once by the connection.
    expect(receivers(1)).toContain(await pubsub.publish('room:1', 1));
    await pubsub.publish('lobby', 'no match');
    await pubsub.publish('room:*', 2);
    await waitFor(() => viaPsubscribe.length >= 2 && viaOption.length >= 2, 5000);
    expect(viaPsubscribe).toEqual(['room:1', 'room:*']);
    expect(viaOption).toEqual(['room:1', 'room:*']);
  });

  it('a channel and a pattern with the same text are separate subscriptions, each receiving each message once', async () => {
    const literal: unknown[] = [];
    const pattern: unknown[] = [];
    const asChannel = await listen(pubsub.subscribe('orders', (m) => void literal.push(m)));
    await listen(pubsub.psubscribe('orders', (m) => void pattern.push(m)));
    // Redis counts (and delivers to) the SUBSCRIBE and the PSUBSCRIBE apart.
    expect(receivers(2)).toContain(await pubsub.publish('orders', 1));
    await pubsub.publish('orders', 2);
    await waitFor(() => literal.length >= 2 && pattern.length >= 2, 5000);
    // One more message as a marker, so a duplicate of 1 or 2 would already be here.
    await pubsub.publish('orders', 3);
    await waitFor(() => literal.length >= 3 && pattern.length >= 3, 5000);
    expect(literal).toEqual([1, 2, 3]);
    expect(pattern).toEqual([1, 2, 3]);
    // Releasing the channel leaves the pattern subscribed, and the other way round.
    await asChannel.unsubscribe();
    expect(receivers(1)).toContain(await pubsub.publish('orders', 4));
    await waitFor(() => pattern.length >= 4, 5000);
    expect(literal).toEqual([1, 2, 3]);
  });

  it('every hostile name stays literal: its subscriber receives its own messages only, under its own name', async () => {
    const got = new Map<string, string[]>(HOSTILE_NAMES.map((name) => [name, []]));
    for (const name of HOSTILE_NAMES) await listen(pubsub.subscribe(name, (_m, channel) => void got.get(name)!.push(channel)));
    for (const decoy of DECOYS) expect(await pubsub.publish(decoy, decoy)).toBe(0);
    for (const name of HOSTILE_NAMES) expect(receivers(1)).toContain(await pubsub.publish(name, name));
    await waitFor(
      () => [...got.values()].every((channels) => channels.length >= 1),
      5000,
      () => `every name's own message, got ${JSON.stringify([...got])}`,
    );
    // The last name's message came last: any stray delivery to the others is already here.
    expect([...got]).toEqual(HOSTILE_NAMES.map((name) => [name, [name]]));
  });

  it('a pattern hands over the user-facing channel name, non-ASCII escapes decoded as UTF-8', async () => {
    const got: Array<[unknown, string]> = [];
    await listen(pubsub.psubscribe('café:*', (message, channel) => void got.push([message, channel])));
    for (const name of ['café:\u00a0x', 'café:日本\u3000語', 'café:%C3%A9', 'café:a:b']) await pubsub.publish(name, name);
    await waitFor(() => got.length >= 4, 5000);
    expect(got).toEqual(['café:\u00a0x', 'café:日本\u3000語', 'café:%C3%A9', 'café:a:b'].map((name) => [name, name]));
  });

  it('a long run of "[" is one literal channel, and subscribing to it as a pattern works', async () => {
    const name = '['.repeat(100_000);
    const got: string[] = [];
    await listen(pubsub.subscribe(name, (_m, channel) => void got.push(channel)));
    await listen(pubsub.psubscribe(`${name}*`, () => undefined));
    await pubsub.publish('[', 'short');
    await pubsub.publish(name, 'long');
    await waitFor(() => got.length >= 1, 5000);
    // A shortened name has no user-facing form left; what matters is that "[" alone never reached it.
    expect(got).toHaveLength(1);
  });

  it('@OnRedisMessage keeps the declared glob as a pattern', async () => {
    const listener = app.get(DeclaredListener);
    await pubsub.publish('declared:1', 1);
    await pubsub.publish('declared:*', 2);
    await waitFor(() => listener.received.length >= 2, 5000);
    expect(listener.received).toEqual(['declared:1', 'declared:*']);
  });

  it('rejects bad arguments naming them', async () => {
    await expect(pubsub.subscribe('x', () => undefined, { pattern: 'yes' as never })).rejects.toThrow(/options\.pattern/);
    await expect(pubsub.subscribe('x', () => undefined, 'pattern' as never)).rejects.toThrow(/options/);
    await expect(pubsub.subscribe('x', () => undefined, { pattren: true } as never)).rejects.toThrow(/options\.pattren/);
    await expect(pubsub.psubscribe('', () => undefined)).rejects.toThrow(InvalidArgumentError);
    await expect(pubsub.psubscribe('', () => undefined)).rejects.toThrow(/pattern/);
    await expect(pubsub.psubscribe('x*', 'nope' as never)).rejects.toThrow(/handler/);
    await expect(pubsub.subscribe('', () => undefined)).rejects.toThrow(/channel/);
  });
});

import { Injectable } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { Cluster, Redis } from 'ioredis';
import { InvalidOptionsError, RedisPatternsModule } from 'nestjs-redis-patterns';
import { StreamConsumer, type StreamMessage, StreamsService } from 'nestjs-redis-patterns/messaging';
import { connectionFor, rawClient, type TopologyName, uniquePrefix, waitFor } from '../../support/redis-env';
import { clientNames, pendingCount } from './streams-helpers';

@Injectable()
class Billing {
  readonly handled: string[] = [];
  inFlight = 0;
  release?: () => void;

  @StreamConsumer({ stream: 'invoices', group: 'billing', consumer: 'billing-1', concurrency: 3 })
  async bill(message: StreamMessage): Promise<void> {
    this.inFlight++;
    if (message.fields.slow) await new Promise<void>((resolve) => (this.release = resolve));
    this.handled.push(message.fields.n);
    this.inFlight--;
  }
}

@Injectable()
class BadConsumer {
  @StreamConsumer({ stream: 'x', group: 'g', batchSize: -5 })
  handle(): void {}
}

describe.each<TopologyName>(['standalone', 'cluster'])('@StreamConsumer on %s', (topology) => {
  let raw: Redis | Cluster;

  beforeAll(() => {
    raw = rawClient(topology);
  });

  afterAll(() => raw?.disconnect());

  it('starts at bootstrap, and app.close() drains the handler in flight before closing connections', async () => {
    const prefix = uniquePrefix(`dec-${topology}`);
    const moduleRef = await Test.createTestingModule({
      imports: [RedisPatternsModule.forRoot({ connection: connectionFor(topology), keyPrefix: prefix, streams: { blockMs: 200 } })],
      providers: [Billing],
    }).compile();
    const app = moduleRef.createNestApplication();
    await app.init();
    const billing = app.get(Billing);
    const streams = app.get(StreamsService);
    // The group exists once init() resolved.
    expect(await raw.call('XINFO', 'GROUPS', streams.keyOf('invoices'))).toHaveLength(1);
    for (let n = 0; n < 10; n++) await streams.add('invoices', { n });
    await waitFor(() => billing.handled.length === 10, 5000);
    await streams.add('invoices', { n: 'last', slow: 'yes' });
    await waitFor(() => billing.inFlight === 1, 5000);
    const closing = app.close();
    await waitFor(() => billing.release !== undefined, 5000);
    billing.release!();
    await closing;
    expect(billing.handled).toContain('last');
    expect(await pendingCount(raw, `${prefix}:stream:invoices`, 'billing')).toBe(0);
    await waitFor(
      async () => !(await clientNames(raw)).some((name) => name.includes('stream:billing:billing-1')),
      5000,
      () => 'the reader connection closed',
    );
  });
});

describe('@StreamConsumer options', () => {
  it('invalid options fail startup with an InvalidOptionsError naming the option', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [RedisPatternsModule.forRoot({ connection: connectionFor('standalone'), keyPrefix: uniquePrefix('dec-bad') })],
      providers: [BadConsumer],
    }).compile();
    const app = moduleRef.createNestApplication();
    let failure: unknown;
    try {
      await app.init();
    } catch (error) {
      failure = error;
    } finally {
      await app.close().catch(() => undefined);
    }
    expect(failure).toBeInstanceOf(InvalidOptionsError);
    expect((failure as InvalidOptionsError).option).toBe('@StreamConsumer() on BadConsumer.handle.batchSize');
  });

  it('an unknown key in the streams module section fails startup naming it', async () => {
    await expect(
      Test.createTestingModule({
        imports: [RedisPatternsModule.forRoot({ connection: connectionFor('standalone'), streams: { claimIdle: 5 } as never })],
      }).compile(),
    ).rejects.toThrow(/streams\.claimIdle/);
    await expect(
      Test.createTestingModule({
        imports: [RedisPatternsModule.forRoot({ connection: connectionFor('standalone'), streams: { maxDeliveries: 0 } })],
      }).compile(),
    ).rejects.toThrow(/streams\.maxDeliveries/);
  });
});

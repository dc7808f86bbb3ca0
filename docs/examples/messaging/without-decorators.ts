import type { PubSubService, StreamsService } from 'nestjs-redis-patterns/messaging';

/** The services without decorators; `send` and `audit` stand in for your own code. */
export async function withoutDecorators(
  pubsub: PubSubService,
  streams: StreamsService,
  room: string,
  send: (message: unknown) => void,
  audit: (fields: Record<string, unknown>) => Promise<void>,
): Promise<void> {
  // #region services
  const sub = await pubsub.subscribe('alerts', (message, channel) => console.log(channel, message));
  await sub.unsubscribe(); // this handler only; other handlers of "alerts" keep receiving

  // A name from a request is one channel, whatever it holds: with room = '*' this is the channel "room:*" only.
  await pubsub.subscribe(`room:${room}`, (message) => send(message));
  // A pattern is asked for explicitly (both lines subscribe to every "orders:…" channel).
  await pubsub.psubscribe('orders:*', (event, channel) => console.log(channel, event));
  await pubsub.subscribe('orders:*', (event, channel) => console.log(channel, event), { pattern: true });

  const consumer = streams.consume({ stream: 'orders', group: 'audit', handler: async (m) => audit(m.fields) });
  await consumer.ready; // the group exists
  console.log(consumer.stats); // { processed, failed, deadLettered, reclaimed }
  await consumer.stop(); // stop reading, finish and acknowledge in-flight entries, close its connection
  // #endregion services

  // #region replay
  const { replayed, skipped } = await streams.replayDeadLetters('orders'); // up to 1000, oldest first; { count, deadLetterStream } optional
  for (const { id, reason } of skipped) console.warn(`dead letter ${id} not replayed: ${reason}`);
  // #endregion replay
  console.log(`${replayed} dead letters replayed`);
}

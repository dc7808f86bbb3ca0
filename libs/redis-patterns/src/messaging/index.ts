// `nestjs-redis-patterns/messaging`: pub/sub and Streams consumer groups: their services, decorators and types.
// Explicit named exports (`export type` for interfaces). The option sections are the root's too (forRoot's `pubsub`
// and `streams`).
export type { PubSubOptions } from './pubsub.options';
export type { StreamsOptions } from './streams.options';
export { PubSubService } from './pubsub.service';
export type { Subscription } from './pubsub.service';
export type { SubscribeOptions } from './subscribe-options';
export type { MessageHandler } from './handler-queue';
export { OnRedisMessage } from './on-redis-message.decorator';
export { StreamsService } from './streams.service';
export type { StreamFields } from './streams.service';
export type { DeadLetterReplay, SkippedDeadLetter } from './dead-letter-replay';
export { StreamConsumer } from './stream-consumer.decorator';
export type { ConsumeOptions, StreamConsumerSettings, StreamHandler, StreamMessage } from './stream-consume-options';
export type { StreamConsumerHandle } from './stream-consumer';
export type { StreamConsumerStats } from './stream-batch';
export { DEAD_LETTER_FIELDS } from './dead-letter';

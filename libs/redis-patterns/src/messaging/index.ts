// Public surface of this pattern: explicit named exports (`export type` for interfaces).
export { MESSAGING_PROVIDERS } from './messaging.providers';
export type { PubSubOptions } from './pubsub-options';
export type { StreamsOptions } from './streams-options';

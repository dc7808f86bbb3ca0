import type { FactoryProvider } from '@nestjs/common';
import type { MemoryKeyspace } from '../memory/memory-keyspace';
import type { RedisExecutor } from '../scripts/redis-executor';
import { RedisConnections } from './redis-connections';

/** How a pattern makes its store in each mode. */
export interface StoreFactories<TSettings, TStore> {
  /** Memory mode (`connection: 'memory://'`): the store on the module's keyspace. */
  memory(keyspace: MemoryKeyspace, settings: TSettings): TStore;
  /** Redis: the store on the executor of the connection the settings name. */
  redis(redis: RedisExecutor, settings: TSettings): TStore;
}

/** The provider of a pattern's store: the in-memory one in memory mode, else the Redis one. */
export function storeProvider<TSettings extends { readonly connection?: string }, TStore>(
  provide: symbol,
  settingsToken: symbol,
  factories: StoreFactories<TSettings, TStore>,
): FactoryProvider<TStore> {
  return {
    provide,
    useFactory: (settings: TSettings, connections: RedisConnections) =>
      connections.memory
        ? factories.memory(connections.memory, settings)
        : factories.redis(connections.executor(settings.connection), settings),
    inject: [settingsToken, RedisConnections],
  };
}

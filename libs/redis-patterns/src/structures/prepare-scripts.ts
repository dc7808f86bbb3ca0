import type { RedisClient } from '../core/connections/redis-connections';
import type { RedisScript } from '../core/scripts/redis-script';

/**
 * Defines scripts on a client before its first command. ioredis copies a client's defined commands into an
 * auto-pipeline when the pipeline opens; a command first defined while a pipeline is already open for the current
 * tick is missing from it ("pipeline[functionName] is not a function"), and that batch's replies are then
 * misassigned. Defining every script up front, at construction, closes that window. (runScript re-defines them
 * once more on first use, which is harmless: the method already exists on every later pipeline.)
 */
export function prepareScripts(client: RedisClient, scripts: ReadonlyArray<RedisScript<unknown>>): void {
  for (const script of scripts) {
    client.defineCommand(script.commandName, { lua: script.lua, numberOfKeys: script.numberOfKeys });
  }
}

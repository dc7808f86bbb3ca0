import type { RedisClient } from '../core/connections/redis-connections';
import type { RedisScript } from '../core/scripts/redis-script';

interface AutoPipeliningOptions {
  autoPipeliningIgnoredCommands?: string[];
}

/**
 * Sends these scripts straight to the socket instead of through ioredis auto-pipelining, on this client only and
 * for these commands only (every other command keeps the connection's settings).
 *
 * Why: ioredis keeps at most one auto-pipeline in flight per node. Under concurrent decisions the app then waits
 * while Redis runs a whole batch, and Redis waits while the app builds the next one: the two never work at the same
 * time. Rate-limit decisions are small, independent and latency-bound, so sending each at once lets both sides
 * work in parallel: on a 2-core machine about twice the decisions per second, and less client CPU per decision
 * (no pipeline object, no deferred flush). The fail-fast settings (command timeout, no offline queue) still apply.
 *
 * The option array is replaced, not pushed to: ioredis' default `[]` may be shared between clients.
 */
export function sendWithoutAutoPipelining(client: RedisClient, scripts: Iterable<RedisScript<unknown>>): void {
  const options = client.options as AutoPipeliningOptions;
  const ignored = options.autoPipeliningIgnoredCommands ?? [];
  const missing = [...scripts].map((script) => script.commandName).filter((name) => !ignored.includes(name));
  if (missing.length > 0) options.autoPipeliningIgnoredCommands = [...ignored, ...missing];
}

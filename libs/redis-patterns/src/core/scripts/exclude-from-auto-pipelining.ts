import type { Cluster, Redis } from 'ioredis';
import type { ScriptDefinition } from './redis-script';

/**
 * Sends these scripts straight to the socket instead of through ioredis auto-pipelining, on this client only and
 * for these commands only (every other command keeps the connection's settings; the command timeout and the
 * EVALSHA/NOSCRIPT fallback still apply).
 *
 * Why, measured by the lock and rate-limit benchmarks on 2 cores: ioredis keeps one auto-pipeline in flight per
 * node, so under concurrent small, independent, latency-bound calls the app and Redis take turns instead of working
 * in parallel, and every batch builds a Pipeline that copies every script defined on the client. Sent directly, a
 * rate-limit decision costs ~40% less client CPU and doubles throughput; a lock acquire + release ~12 µs less CPU.
 * It also keeps these calls out of a batch that fails as a whole (a cluster batch split by a resharding).
 *
 * The option array is replaced, not pushed to: ioredis' default `[]` may be shared between clients.
 */
export function excludeFromAutoPipelining(client: Redis | Cluster, scripts: Iterable<Pick<ScriptDefinition, 'commandName'>>): void {
  const options = client.options as { autoPipeliningIgnoredCommands?: string[] };
  const ignored = options.autoPipeliningIgnoredCommands ?? [];
  const missing = [...scripts].map((script) => script.commandName).filter((name) => !ignored.includes(name));
  if (missing.length > 0) options.autoPipeliningIgnoredCommands = [...ignored, ...missing];
}

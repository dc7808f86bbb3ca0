import type { Cluster, Redis } from 'ioredis';
import { RedisExecutor } from '../scripts/redis-executor';
import { libraryMeter } from '../telemetry/metrics';

/** Client events that change a connection's state, as the metric's `state` attribute names them. */
const STATES = { ready: 'ready', close: 'closed', reconnecting: 'reconnecting', end: 'ended' } as const;

/**
 * Records a connection's state changes (`redis_patterns.connection.state_changes`, by connection and state) and
 * reconnect attempts (`redis_patterns.connection.reconnects`). `connection` is the configured name (a dedicated
 * connection counts under the connection it was opened from), never an address.
 */
export function recordConnectionMetrics(client: Redis | Cluster, connection: string): void {
  const meter = libraryMeter();
  const stateChanges = meter.counter('redis_patterns.connection.state_changes', 'Redis connection state changes', '{change}');
  const reconnects = meter.counter('redis_patterns.connection.reconnects', 'Redis reconnection attempts', '{attempt}');
  for (const [event, state] of Object.entries(STATES)) {
    const attributes = Object.freeze({ connection, state });
    client.on(event, () => stateChanges.add(1, attributes));
  }
  const named = Object.freeze({ connection });
  client.on('reconnecting', () => reconnects.add(1, named));
}

/** Counts the commands of a connection left without a reply: deadline passed or connection closed first (`redis_patterns.connection.command_timeouts`). */
export function recordCommandTimeouts(client: Redis | Cluster, connection: string): void {
  const timeouts = libraryMeter().counter(
    'redis_patterns.connection.command_timeouts',
    'Commands left without a reply: past commandTimeoutMs, or their connection closed first',
    '{command}',
  );
  const named = Object.freeze({ connection });
  RedisExecutor.of(client).failures.onTimeout = () => timeouts.add(1, named);
}

import type { Cluster, Redis } from 'ioredis';
import { unavailableError } from './command-wire';
import { outageReason } from './outage-reason';
import type { ServerLiveness } from '../connections/connection-liveness';
import { RedisRefusedError } from '../../errors/redis-refused.error';
import { RedisUnavailableError } from '../../errors/redis-unavailable.error';

type RedisClient = Redis | Cluster;

/**
 * How the failed commands of one connection are judged, in one place for every pattern: an outage (no answer, or no
 * connection to send it on; see outage-reason.ts) takes the server down and becomes {@link RedisUnavailableError},
 * a configuration reply becomes {@link RedisRefusedError} and is kept for health until that command succeeds
 * (the executor clears it on a reply: only failures run here, off the hot path).
 */
export class CommandFailures {
  /** The configured name of this connection, which outage errors name (without it, the server's address). */
  connection?: string;
  /** Called when a command of this connection timed out (its connection's metrics count them). */
  onTimeout?: () => void;
  /** The last configuration refusal (NOPERM, WRONGTYPE …) until that command succeeds: health reports it. */
  lastRefusal?: RedisRefusedError;

  /** `home` is the server of a call that names none: the connection's one server; none on a cluster. */
  constructor(
    private readonly client: RedisClient,
    private readonly liveness: ServerLiveness,
    private readonly home: string | undefined,
  ) {}

  /**
   * What a failed command rejects with: an outage becomes {@link RedisUnavailableError} naming the connection,
   * configuration replies become {@link RedisRefusedError}; anything else (a script's error, a reply) is returned
   * unchanged. An outage takes server `node` down (the connection's one server by default; on a cluster, the master
   * the call was for, when known).
   */
  failed(command: string, error: unknown, node = this.home): unknown {
    if (error instanceof RedisUnavailableError) return error;
    const reason = outageReason(error);
    if (reason !== undefined) {
      const unavailable = unavailableError(this.client, this.connection, command, reason, error);
      this.liveness.wentDown(node, unavailable);
      if (unavailable.mayHaveRun) this.onTimeout?.();
      return unavailable;
    }
    const classified = RedisRefusedError.from(command, error);
    if (classified instanceof RedisRefusedError) this.lastRefusal = classified;
    return classified;
  }

  /** The error of a call refused while its server is down: never sent. */
  unsent(command: string, server: string | undefined): RedisUnavailableError {
    // Its cause is what took the server down (ioredis' own error, as for a call that was sent).
    const down = this.liveness.causeOf(server);
    const cause = down instanceof RedisUnavailableError ? down.cause : down;
    return unavailableError(this.client, this.connection, command, 'disconnected', cause);
  }
}

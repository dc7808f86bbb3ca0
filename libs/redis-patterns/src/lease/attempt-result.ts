/** The outcome of one acquisition attempt that reached a decision. */
export type AttemptResult =
  | { readonly acquired: true; readonly fencingToken: number }
  | {
      readonly acquired: false;
      /** `contention`: held by someone else; `replication`: taken but not acknowledged by enough replicas (given back). */
      readonly reason: 'contention' | 'replication';
      /** When the current holder's lease expires at the latest, in ms (0 when unknown). */
      readonly retryAfterMs: number;
    };

/**
 * Parses the reply every acquire script gives (a lock, a read or write lease, a permit): `{1, fencingToken}` when
 * taken, `{0, ms until the holder(s) expire}` when held. The token comes as text (see NEXT_FENCE_LUA).
 */
export function toAttemptResult(reply: [number, string | number]): AttemptResult {
  if (Number(reply[0]) === 1) return { acquired: true, fencingToken: Number(reply[1]) };
  return { acquired: false, reason: 'contention', retryAfterMs: Math.max(0, Number(reply[1])) };
}

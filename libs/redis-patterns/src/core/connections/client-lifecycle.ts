import type { Cluster, Redis } from 'ioredis';
import { withDeadline } from '../time/with-deadline';

/**
 * QUIT (which waits for pending replies) with a deadline, then disconnect, which also stops reconnecting; resolves
 * once the client has reached `end`, so a caller can rely on the socket being gone.
 */
export async function closeClient(client: Redis | Cluster, deadlineMs: number): Promise<void> {
  if (client.status === 'end') return;
  const quit =
    client.status === 'ready'
      ? client.quit().then(
          () => undefined,
          () => undefined,
        )
      : Promise.resolve();
  await withDeadline(quit, deadlineMs, () => undefined);
  const status = (): string => client.status;
  if (status() !== 'end') client.disconnect();
  // Sockets close asynchronously; a manually closed cluster may stop at `close` (it never reconnects from there).
  for (let waited = 0; status() !== 'end' && status() !== 'close' && waited < 1000; waited += 10) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

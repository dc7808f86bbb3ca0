import type { Cluster, Redis } from 'ioredis';

/**
 * Resolves true once `client` is ready (at once if it is), false when `ms` pass first. The timer is referenced: an
 * unreferenced one let a process with nothing else pending (a script, a test) exit in the middle of the wait; the
 * wait is bounded, so it never keeps a process alive longer than `ms`.
 */
export function readyWithin(client: Redis | Cluster, ms: number): Promise<boolean> {
  if (client.status === 'ready') return Promise.resolve(true);
  return new Promise<boolean>((resolve) => {
    const onReady = (): void => finish(true);
    const timer = setTimeout(() => finish(false), ms);
    function finish(ok: boolean): void {
      clearTimeout(timer);
      client.off('ready', onReady);
      resolve(ok);
    }
    client.on('ready', onReady);
  });
}

/**
 * Settles as `work` does, or, if it has not settled within `ms`, with what `onTimeout` returns (or throws). The
 * timer is cleared either way, so a deadline never keeps the process alive nor fires after the work is done.
 *
 * @example
 * await withDeadline(client.quit(), 2000, () => undefined); // give up waiting, not the work
 * await withDeadline(node.ping(), 500, () => { throw new Error('no reply within 500 ms'); });
 */
export function withDeadline<T, U = never>(work: Promise<T>, ms: number, onTimeout: () => U): Promise<T | U> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<U>((resolve, reject) => {
    timer = setTimeout(() => {
      try {
        resolve(onTimeout());
      } catch (error) {
        reject(error);
      }
    }, ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

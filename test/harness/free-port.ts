import { createServer } from 'node:net';

function tryListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A free loopback port. Cluster nodes also need port + 10000 (the cluster bus) to be free, so ports are drawn
 * from 20000–45000 and, with `withBus`, both are checked.
 */
export async function freePort(options: { withBus?: boolean; exclude?: Set<number> } = {}): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = 20000 + Math.floor(Math.random() * 25000);
    if (options.exclude?.has(port) || options.exclude?.has(port + 10000)) continue;
    if (!(await tryListen(port))) continue;
    if (options.withBus && !(await tryListen(port + 10000))) continue;
    options.exclude?.add(port);
    return port;
  }
  throw new Error('No free loopback port found after 200 attempts.');
}

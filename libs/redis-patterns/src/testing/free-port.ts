import { createServer } from 'node:net';

function listens(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A free loopback port. A cluster node also needs port + 10000 (its bus) free, so with `withBus` ports are drawn from
 * 20000–45000 and both are checked; otherwise the system picks one.
 */
export async function freeLoopbackPort(options: { withBus?: boolean; exclude?: ReadonlySet<number> } = {}): Promise<number> {
  if (!options.withBus) {
    return new Promise((resolve, reject) => {
      const server = createServer();
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
  }
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = 20000 + Math.floor(Math.random() * 25000);
    if (options.exclude?.has(port)) continue;
    if ((await listens(port)) && (await listens(port + 10000))) return port;
  }
  throw new Error('No free loopback port (with its cluster bus port) found after 200 attempts.');
}

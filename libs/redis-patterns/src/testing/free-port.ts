import { createServer } from 'node:net';

// A server a test stops and restarts must get its port back, so ports are drawn from a fixed range rather than
// handed out by the system. A cluster node also needs port + 10000 (its bus), which stays below 65536 from here.
const LOWEST = 20000;
const RANGE = 25000;
const BUS_OFFSET = 10000;

function listens(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * `count` distinct free loopback ports; with `withBus`, each one's cluster bus port is free too, and no port is
 * another's bus port.
 */
export async function freeLoopbackPorts(count: number, options: { withBus?: boolean } = {}): Promise<number[]> {
  const ports: number[] = [];
  const taken = new Set<number>();
  for (let attempt = 0; ports.length < count; attempt++) {
    if (attempt >= 200 * count) throw new Error(`No ${count} free loopback ports found after ${attempt} attempts.`);
    const port = LOWEST + Math.floor(Math.random() * RANGE);
    const needed = options.withBus ? [port, port + BUS_OFFSET] : [port];
    if (needed.some((p) => taken.has(p))) continue;
    if (!(await listens(port)) || (options.withBus && !(await listens(port + BUS_OFFSET)))) continue;
    ports.push(port);
    for (const p of needed) taken.add(p);
  }
  return ports;
}

/** A free loopback port (with `withBus`, its cluster bus port is free too). */
export async function freeLoopbackPort(options: { withBus?: boolean } = {}): Promise<number> {
  const [port] = await freeLoopbackPorts(1, options);
  return port;
}

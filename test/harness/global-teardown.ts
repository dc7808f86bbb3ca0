import { rmSync } from 'node:fs';

/** Stops every process globalSetup started (SIGTERM, then SIGKILL after 5 s) and removes their directory. */
export default async function globalTeardown(): Promise<void> {
  const state = globalThis.__REDIS_TOPOLOGIES__;
  if (!state) return;
  await Promise.all(state.topologies.map((t) => t.stop()));
  rmSync(state.root, { recursive: true, force: true });
  globalThis.__REDIS_TOPOLOGIES__ = undefined;
}

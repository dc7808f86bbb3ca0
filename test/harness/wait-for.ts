/**
 * Polls `check` every 25 ms until it is true, or throws after `timeoutMs`. A check that throws counts as "not yet":
 * what it polls (a server starting, a failover) answers with errors until it is ready.
 */
export async function waitFor(
  check: () => Promise<boolean> | boolean,
  timeoutMs: number,
  message: () => string = () => 'condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for: ${message()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * The sample's "database" is an in-process repository. Every call waits SAMPLE_DB_LATENCY_MS (default 40 ms) to
 * stand in for a network hop and a query, so the difference caching makes is visible (and measurable) on a laptop.
 */
export function simulatedLatencyMs(): number {
  return Number(process.env.SAMPLE_DB_LATENCY_MS ?? 40);
}

export function simulatedLatency(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, simulatedLatencyMs()));
}

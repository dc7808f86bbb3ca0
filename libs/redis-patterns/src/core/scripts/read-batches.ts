import { MAX_BATCH_ITEMS } from './script-batches';

interface PendingReads {
  readonly keys: string[];
  readonly settle: Array<{ resolve(value: string | null): void; reject(error: unknown): void }>;
}

/**
 * Gathers the GETs of one event-loop turn into one MGET (at most {@link MAX_BATCH_ITEMS} keys; a lone read is a
 * GET), sent at the end of the turn: the hits of HTTP requests read together cost Redis one command and the app
 * one socket write. Only for a single server: on a cluster each key may live in its own slot.
 */
export class ReadBatches {
  private pending?: PendingReads;

  constructor(private readonly sendReads: (keys: string[]) => Promise<Array<string | null>>) {}

  add(key: string): Promise<string | null> {
    let batch = this.pending;
    if (!batch) {
      batch = this.pending = { keys: [], settle: [] };
      setImmediate(this.flush);
    }
    const reads = batch;
    reads.keys.push(key);
    const reply = new Promise<string | null>((resolve, reject) => reads.settle.push({ resolve, reject }));
    if (reads.keys.length >= MAX_BATCH_ITEMS) this.flush();
    return reply;
  }

  /** Sends the reads waiting for the end of the turn now (a no-op when none are). */
  readonly flush = (): void => {
    const batch = this.pending;
    if (!batch) return;
    this.pending = undefined;
    const { keys, settle } = batch;
    this.sendReads(keys).then(
      (values) => {
        for (let i = 0; i < settle.length; i++) settle[i].resolve(values[i] ?? null);
      },
      (error: unknown) => {
        for (const item of settle) item.reject(error);
      },
    );
  };
}

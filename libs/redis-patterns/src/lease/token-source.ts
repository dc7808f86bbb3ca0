import { randomFill, randomFillSync } from 'node:crypto';

/** Characters of one owner token: 22 base64url characters carry 132 random bits (≥ 128, issue 5). */
export const TOKEN_LENGTH = 22;
/** Random bytes drawn per pool: 3072 bytes encode to exactly 4096 base64url characters, 186 tokens. */
const POOL_BYTES = 3072;

/**
 * Owner tokens cut from a pool of cryptographically random bytes. One `randomBytes(16)` per lock cost ~5% of the
 * acquire path (a synchronous call into the CSPRNG, plus a Buffer and its encoding per token); here one draw of
 * 3 KiB serves 186 tokens, and the next pool is filled asynchronously (libuv thread pool) once half of the current
 * one is used, so the hot path only slices a string. Every random byte is used by exactly one token and never
 * again; a token is never derived from another, so knowing one token tells nothing about the next.
 */
export class TokenSource {
  private pool: string;
  private offset = 0;
  private next: string | undefined;
  private refilling = false;

  constructor(private readonly poolBytes: number = POOL_BYTES) {
    this.pool = TokenSource.draw(poolBytes);
  }

  /** A fresh token of {@link TOKEN_LENGTH} base64url characters. */
  take(): string {
    if (this.offset + TOKEN_LENGTH > this.pool.length) this.rotate();
    const start = this.offset;
    this.offset = start + TOKEN_LENGTH;
    if (this.next === undefined && !this.refilling && this.offset * 2 >= this.pool.length) this.refill();
    return this.pool.slice(start, this.offset);
  }

  /** Switches to the pool filled in the background, or draws one synchronously when it has not arrived yet. */
  private rotate(): void {
    this.pool = this.next ?? TokenSource.draw(this.poolBytes);
    this.next = undefined;
    this.offset = 0;
  }

  private refill(): void {
    this.refilling = true;
    randomFill(Buffer.allocUnsafe(this.poolBytes), (error, bytes) => {
      this.refilling = false;
      // On the (theoretical) error, rotate() falls back to a synchronous draw, which throws if the CSPRNG is broken.
      if (!error) this.next = bytes.toString('base64url');
    });
  }

  private static draw(bytes: number): string {
    return randomFillSync(Buffer.allocUnsafe(bytes)).toString('base64url');
  }
}

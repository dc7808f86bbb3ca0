import { TOKEN_LENGTH, TokenSource } from './token-source';

const BASE64URL = /^[A-Za-z0-9_-]+$/;

describe('TokenSource', () => {
  it('issues base64url tokens carrying at least 128 random bits', () => {
    const token = new TokenSource().take();
    expect(token).toHaveLength(TOKEN_LENGTH);
    expect(token).toMatch(BASE64URL);
    expect(Buffer.from(token, 'base64url').length).toBeGreaterThanOrEqual(16);
  });

  it('never repeats a token across many pools, whether the next pool was filled in the background or not', async () => {
    const source = new TokenSource();
    const seen = new Set<string>();
    // 2,000 synchronous takes exhaust ~10 pools before any background fill can land (synchronous fallback) ...
    for (let i = 0; i < 2000; i++) seen.add(source.take());
    // ... then takes spread over event-loop turns use the pools filled asynchronously.
    for (let round = 0; round < 20; round++) {
      for (let i = 0; i < 100; i++) seen.add(source.take());
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    expect(seen.size).toBe(4000);
  });

  it('switches pools when one is used up, even a tiny one', () => {
    // 48 bytes encode to 64 characters: two tokens per pool, so every third take rotates.
    const source = new TokenSource(48);
    const tokens = Array.from({ length: 30 }, () => source.take());
    expect(new Set(tokens).size).toBe(30);
    for (const token of tokens) expect(token).toMatch(new RegExp(`^[A-Za-z0-9_-]{${TOKEN_LENGTH}}$`));
  });

  it('does not let two sources share random bytes', () => {
    const a = new TokenSource();
    const b = new TokenSource();
    const fromA = new Set(Array.from({ length: 500 }, () => a.take()));
    expect(Array.from({ length: 500 }, () => b.take()).some((token) => fromA.has(token))).toBe(false);
  });
});

import type { LoggerService } from '@nestjs/common';
import { resolveCacheSettings } from '../cache.options';
import { CacheHealth } from './cache-health';

function health(outage: { cause?: unknown; key?: string } = {}) {
  const lines: string[] = [];
  const asked: Array<string | undefined> = [];
  const logger = { log() {}, error() {}, warn: (m: string) => lines.push(m) } as unknown as LoggerService;
  return {
    lines,
    asked,
    outage,
    health: new CacheHealth(resolveCacheSettings({ failureLogIntervalMs: 60_000 }), logger, {
      outageFor: (key) => {
        asked.push(key);
        return outage.key === undefined || outage.key === key ? outage.cause : undefined;
      },
    }),
  };
}

describe('CacheHealth (fail-open policy)', () => {
  it('logs one line per interval however many failures, and counts them all', () => {
    const { lines, health: h } = health();
    for (let i = 0; i < 100; i++) h.failed('read', new Error('Command timed out'));
    expect(h.stats.errors).toBe(100);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/Cache read failed; serving from the source \(fail-open\): Error: Command timed out/);
  });

  it('never logs credentials from an error message', () => {
    const { lines, health: h } = health();
    h.failed('read', new Error('connect to redis://app:s3cret@db:6379 failed'));
    expect(lines.join('\n')).not.toContain('s3cret');
  });

  it("skips Redis exactly while the store says the key's server does not answer, counting each skip", () => {
    const state = health();
    const h = state.health;
    // Failures alone never make the cache skip Redis: only the connection's view does.
    for (let i = 0; i < 10; i++) h.failed('read', new Error('Command timed out'));
    expect(h.available('a')).toBe(true);
    state.outage.cause = new Error('down');
    state.outage.key = 'b';
    expect([h.available('a'), h.available('b')]).toEqual([true, false]);
    expect(state.asked).toEqual(['a', 'a', 'b']);
    expect(h.stats.bypassed).toBe(1);
    state.outage.cause = undefined;
    expect(h.available('b')).toBe(true);
    expect(h.stats.bypassed).toBe(1);
  });

  it('logs a skip like a failure, under the same rate limit: the outage may have been found by another pattern', () => {
    const { lines, health: h } = health({ cause: new Error('Redis connection "default" is disconnected') });
    for (let i = 0; i < 50; i++) expect(h.available('k')).toBe(false);
    expect(h.stats.bypassed).toBe(50);
    expect(lines).toEqual(['Cache skipped Redis; serving from the source (fail-open): Error: Redis connection "default" is disconnected']);
  });
});

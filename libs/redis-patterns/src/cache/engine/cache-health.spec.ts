import type { LoggerService } from '@nestjs/common';
import { resolveCacheSettings } from '../cache.options';
import { CacheHealth } from './cache-health';

function health(overrides = {}) {
  const lines: string[] = [];
  const logger = { log() {}, error() {}, warn: (m: string) => lines.push(m) } as unknown as LoggerService;
  return {
    lines,
    health: new CacheHealth(
      resolveCacheSettings({ breakerThreshold: 3, breakerCooldownMs: 50, failureLogIntervalMs: 60_000, ...overrides }),
      logger,
    ),
  };
}

describe('CacheHealth (fail-open policy)', () => {
  it('logs one line per interval however many failures, and counts them all', () => {
    const { lines, health: h } = health({ breakerThreshold: 1000 });
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

  it('opens after N consecutive failures, bypasses during the cooldown, recovers on success', () => {
    jest.useFakeTimers({ now: 1_000_000 });
    const { health: h } = health();
    h.failed('read', new Error('x'));
    h.succeeded();
    h.failed('read', new Error('x'));
    h.failed('read', new Error('x'));
    expect(h.available()).toBe(true); // 2 consecutive after a success: still closed
    h.failed('read', new Error('x'));
    expect(h.available()).toBe(false);
    expect(h.stats.bypassed).toBe(1);
    jest.advanceTimersByTime(60); // the clock the breaker reads (Date.now), moved past the 50 ms cooldown
    expect(h.available()).toBe(true); // half-open
    h.failed('read', new Error('x')); // still failing: re-opens at once
    expect(h.available()).toBe(false);
    jest.advanceTimersByTime(60); // the clock the breaker reads (Date.now), moved past the 50 ms cooldown
    expect(h.available()).toBe(true);
    h.succeeded();
    h.failed('read', new Error('x'));
    expect(h.available()).toBe(true);
    jest.useRealTimers();
  });

  it('closes the breaker (and lets fills write again) as soon as the connection is ready again', () => {
    jest.useFakeTimers({ now: 1_000_000 });
    const { health: h } = health({ breakerCooldownMs: 1000 });
    for (let i = 0; i < 3; i++) h.failed('read', new Error("Stream isn't writeable"));
    expect(h.available()).toBe(false);
    expect(h.writable()).toBe(false);
    jest.advanceTimersByTime(10);
    h.connectionReady();
    expect(h.available()).toBe(true);
    expect(h.writable()).toBe(true);
    jest.useRealTimers();
  });
});

import { CircuitBreaker } from './circuit-breaker';

describe('CircuitBreaker', () => {
  afterEach(() => jest.useRealTimers());

  it('with a cooldown: opens after N consecutive failures, half-opens after the cooldown, re-opens on the next failure', () => {
    jest.useFakeTimers({ now: 1_000_000 });
    const breaker = new CircuitBreaker({ threshold: 3, cooldownMs: 50 });
    breaker.failed();
    breaker.succeeded();
    breaker.failed();
    breaker.failed();
    expect(breaker.isOpen).toBe(false);
    breaker.failed();
    expect(breaker.isOpen).toBe(true);
    jest.advanceTimersByTime(50);
    expect(breaker.isOpen).toBe(false);
    breaker.failed();
    expect(breaker.isOpen).toBe(true);
    breaker.close();
    expect(breaker.isOpen).toBe(false);
  });

  it('with no cooldown and no probe, never opens', () => {
    const breaker = new CircuitBreaker({ threshold: 1, cooldownMs: 0 });
    for (let i = 0; i < 10; i++) breaker.failed();
    expect(breaker.isOpen).toBe(false);
  });
});

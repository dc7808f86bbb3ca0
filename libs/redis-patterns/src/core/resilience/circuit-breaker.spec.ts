import { CircuitBreaker } from './circuit-breaker';

describe('CircuitBreaker', () => {
  afterEach(() => jest.useRealTimers());

  it('with a cooldown: opens after N consecutive failures, half-opens after the cooldown, re-opens on the next failure', () => {
    jest.useFakeTimers({ now: 1_000_000 });
    const breaker = new CircuitBreaker({ threshold: 3, cooldownMs: 50 });
    breaker.failed(new Error('x'));
    breaker.succeeded();
    breaker.failed(new Error('x'));
    breaker.failed(new Error('x'));
    expect(breaker.isOpen).toBe(false);
    breaker.failed(new Error('x'));
    expect(breaker.isOpen).toBe(true);
    jest.advanceTimersByTime(50);
    expect(breaker.isOpen).toBe(false);
    breaker.failed(new Error('x'));
    expect(breaker.isOpen).toBe(true);
    breaker.close();
    expect(breaker.isOpen).toBe(false);
  });

  it('with no cooldown and no probe, never opens', () => {
    const breaker = new CircuitBreaker({ threshold: 1, cooldownMs: 0 });
    for (let i = 0; i < 10; i++) breaker.failed(new Error('x'));
    expect(breaker.isOpen).toBe(false);
  });

  it('with a probe: stays open until the background probe succeeds, counting only the failures it is told to', async () => {
    jest.useFakeTimers();
    let healthy = false;
    const probe = jest.fn(() => (healthy ? Promise.resolve('PONG') : Promise.reject(new Error('down'))));
    const breaker = new CircuitBreaker({ threshold: 1, probe, probeMs: 100, counts: (error) => !(error instanceof TypeError) });
    breaker.failed(new TypeError('a reply: the server is up'));
    expect(breaker.isOpen).toBe(false);
    breaker.failed(new Error('Connection is closed'));
    expect(breaker.isOpen).toBe(true);
    await jest.advanceTimersByTimeAsync(100);
    expect(probe).toHaveBeenCalledTimes(1);
    expect(breaker.isOpen).toBe(true);
    healthy = true;
    await jest.advanceTimersByTimeAsync(100);
    expect(breaker.isOpen).toBe(false);
    breaker.stop();
    breaker.failed(new Error('after shutdown'));
    expect(breaker.isOpen).toBe(false);
  });
});

import { LazyAbort } from './lazy-abort';

describe('LazyAbort', () => {
  it('makes no signal until one is read, and a signal read later aborts with the first reason', () => {
    const abort = new LazyAbort();
    expect(abort.aborted).toBe(false);
    const first = new Error('lost');
    abort.abort(first);
    abort.abort(new Error('again'));
    expect(abort.aborted).toBe(true);
    expect(abort.signal.aborted).toBe(true);
    expect(abort.signal.reason).toBe(first);
  });

  it('aborts a signal read before, once, and gives the same signal on every read', () => {
    const abort = new LazyAbort();
    const signal = abort.signal;
    expect(abort.signal).toBe(signal);
    let events = 0;
    signal.addEventListener('abort', () => events++);
    const reason = new Error('lost');
    abort.abort(reason);
    abort.abort(new Error('again'));
    expect(events).toBe(1);
    expect(signal.reason).toBe(reason);
  });
});

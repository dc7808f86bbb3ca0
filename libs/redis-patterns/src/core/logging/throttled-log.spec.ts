import { ThrottledLog } from './throttled-log';

describe('ThrottledLog', () => {
  afterEach(() => jest.useRealTimers());

  it('logs the first warning, then at most one per interval with the count of repeats in between', () => {
    jest.useFakeTimers({ now: 1_000_000 });
    const lines: string[] = [];
    const log = new ThrottledLog({ log: () => undefined, error: () => undefined, warn: (message: string) => lines.push(message) }, 1000);
    log.warn('dropped');
    log.warn('dropped');
    log.warn('dropped');
    expect(lines).toEqual(['dropped']);
    jest.advanceTimersByTime(999);
    log.warn('dropped');
    expect(lines).toHaveLength(1);
    jest.advanceTimersByTime(1);
    log.warn('dropped again');
    expect(lines).toEqual(['dropped', 'dropped again (3 more since the last report)']);
  });
});

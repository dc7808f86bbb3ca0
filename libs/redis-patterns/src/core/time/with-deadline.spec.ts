import { withDeadline } from './with-deadline';

describe('withDeadline', () => {
  afterEach(() => jest.useRealTimers());

  it('settles with the work when it finishes in time, and clears its timer', async () => {
    jest.useFakeTimers();
    const onTimeout = jest.fn(() => 'late');
    await expect(withDeadline(Promise.resolve('done'), 100, onTimeout)).resolves.toBe('done');
    expect(jest.getTimerCount()).toBe(0);
    jest.advanceTimersByTime(200);
    expect(onTimeout).not.toHaveBeenCalled();
  });

  it('settles with the work’s rejection', async () => {
    await expect(withDeadline(Promise.reject(new Error('refused')), 100, () => 'late')).rejects.toThrow('refused');
  });

  it('resolves with onTimeout’s value, or rejects with what it throws, once the deadline passes', async () => {
    jest.useFakeTimers();
    const never = new Promise<string>(() => undefined);
    const late = withDeadline(never, 100, () => 'timeout' as const);
    const failing = withDeadline(never, 100, () => {
      throw new Error('no reply within 100 ms');
    });
    jest.advanceTimersByTime(100);
    await expect(late).resolves.toBe('timeout');
    await expect(failing).rejects.toThrow('no reply within 100 ms');
  });
});

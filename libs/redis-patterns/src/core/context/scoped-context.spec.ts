import { ScopedContext } from './scoped-context';

/** Whether the context's AsyncLocalStorage is enabled (Node keeps its promise hook on while any one is). */
const enabled = (context: ScopedContext<unknown>): boolean => (context as unknown as { storage: { enabled: boolean } }).storage.enabled;

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('ScopedContext', () => {
  it('gives the work its store across awaits, the innermost one when nested, and nothing outside', async () => {
    const context = new ScopedContext<string>();
    expect(context.get()).toBeUndefined();
    const seen: Array<string | undefined> = [];
    await context.run('outer', async () => {
      await tick();
      seen.push(context.get());
      await context.run('inner', async () => {
        await tick();
        seen.push(context.get());
      });
      seen.push(context.get());
    });
    expect(seen).toEqual(['outer', 'inner', 'outer']);
    expect(context.get()).toBeUndefined();
  });

  it('keeps concurrent works apart', async () => {
    const context = new ScopedContext<number>();
    const seen = await Promise.all(
      [1, 2, 3].map((n) =>
        context.run(n, async () => {
          await tick();
          await tick();
          return context.get();
        }),
      ),
    );
    expect(seen).toEqual([1, 2, 3]);
  });

  it('is enabled only while a work runs, so the process pays no async hook once every work has ended', async () => {
    const context = new ScopedContext<string>();
    let release!: () => void;
    const first = context.run('a', () => new Promise<void>((resolve) => (release = resolve)));
    const second = context.run('b', async () => tick());
    expect(enabled(context)).toBe(true);
    await second;
    // One work still runs: the storage stays enabled for it.
    expect(enabled(context)).toBe(true);
    release();
    await first;
    expect(enabled(context)).toBe(false);
    expect(await context.run('c', async () => context.get())).toBe('c');
    expect(enabled(context)).toBe(false);
  });

  it('passes errors through, thrown or rejected, and still disables when they end', async () => {
    const context = new ScopedContext<string>();
    await expect(
      context.run('a', () => {
        throw new Error('sync');
      }),
    ).rejects.toThrow('sync');
    await expect(context.run('b', () => Promise.reject(new Error('async')))).rejects.toThrow('async');
    expect(enabled(context)).toBe(false);
    expect(context.get()).toBeUndefined();
  });
});

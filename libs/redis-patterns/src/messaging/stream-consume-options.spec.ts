import { InvalidArgumentError } from '../errors/invalid-argument.error';
import { InvalidOptionsError } from '../errors/invalid-options.error';
import { resolveConsumerSettings } from './stream-consume-options';

const asArgument = { kind: 'argument' as const, path: 'options' };

describe('resolveConsumerSettings', () => {
  it('applies the call, then the module section, then the defaults', () => {
    const settings = resolveConsumerSettings(
      { stream: 's', group: 'g', batchSize: 10 },
      { batchSize: 50, claimIdleMs: 900 },
      () => 'auto',
      asArgument,
    );
    expect(settings).toEqual({
      stream: 's',
      group: 'g',
      consumer: 'auto',
      deadLetterStream: 's.dlq',
      batchSize: 10,
      blockMs: 2000,
      concurrency: 1,
      claimIdleMs: 900,
      maxDeliveries: 5,
      stopTimeoutMs: 10_000,
    });
  });

  it('names the bad argument for calls and the bad option for decorators', () => {
    expect(() => resolveConsumerSettings({ stream: 's', group: 'g', concurrency: 0 }, undefined, () => 'c', asArgument)).toThrow(
      InvalidArgumentError,
    );
    expect(() => resolveConsumerSettings({ stream: 's', group: 'g', concurrency: 1.5 }, undefined, () => 'c', asArgument)).toThrow(
      /options\.concurrency/,
    );
    const fromDecorator = () =>
      resolveConsumerSettings({ stream: 's', group: 'g', maxDeliveries: 0 }, undefined, () => 'c', {
        kind: 'option',
        path: '@StreamConsumer() on A.b',
      });
    expect(fromDecorator).toThrow(InvalidOptionsError);
    expect(fromDecorator).toThrow(/@StreamConsumer\(\) on A\.b\.maxDeliveries/);
  });

  it('rejects unknown keys, missing names and a dead-letter stream equal to the source', () => {
    expect(() => resolveConsumerSettings({ stream: 's', group: 'g', claimIdle: 1 } as never, undefined, () => 'c', asArgument)).toThrow(
      /options\.claimIdle/,
    );
    expect(() => resolveConsumerSettings({ stream: 's' }, undefined, () => 'c', asArgument)).toThrow(/options\.group/);
    expect(() => resolveConsumerSettings({ stream: 's', group: 'g', deadLetterStream: 's' }, undefined, () => 'c', asArgument)).toThrow(
      /deadLetterStream/,
    );
  });
});

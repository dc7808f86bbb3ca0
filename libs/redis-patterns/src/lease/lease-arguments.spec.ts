import { InvalidArgumentError } from '../errors/invalid-argument.error';
import { checkMs, checkResource } from './lease-arguments';

describe('lease arguments', () => {
  it('rejects bad resources and durations naming the argument', () => {
    expect(() => checkResource('')).toThrow(InvalidArgumentError);
    expect(() => checkResource(42)).toThrow(/"resource"/);
    expect(() => checkMs(0, 'ttlMs', 1)).toThrow(/"ttlMs"/);
    expect(checkMs(0, 'waitMs', 0)).toBe(0);
  });
});

import { KeyBuilder } from '../core/keys/key-builder';
import { InvalidArgumentError } from '../errors/invalid-argument.error';
import { ACQUIRE_PERMIT_SCRIPT } from './scripts/acquire-permit.script';
import { checkPermits, semaphoreKeys } from './semaphore-keys';

describe('semaphore keys', () => {
  const keys = new KeyBuilder('app');

  it('puts the holders and the fencing counter under one hash tag, with plain names verbatim', () => {
    expect(semaphoreKeys(keys, 'pdf-render')).toEqual({ lease: 'app:semaphore:{pdf-render}', fence: 'app:semaphore:{pdf-render}:fence' });
  });

  it('escapes user input so it cannot break out of the hash tag', () => {
    expect(semaphoreKeys(keys, 'a}:{b').lease).toBe('app:semaphore:{a%7D%3A%7Bb}');
  });

  it('accepts positive integer permit counts only, naming the argument', () => {
    expect(checkPermits(3)).toBe(3);
    for (const bad of [0, -1, 1.5, Number.NaN, '3', undefined]) expect(() => checkPermits(bad)).toThrow(InvalidArgumentError);
    expect(() => checkPermits(0)).toThrow(/"permits"/);
  });
});

describe('semaphore scripts', () => {
  it.each([ACQUIRE_PERMIT_SCRIPT])('$name declares the keys and arguments its body uses', (script) => {
    const { body } = script;
    const highest = (name: string) => Math.max(0, ...[...body.matchAll(new RegExp(`${name}\\[(\\d+)\\]`, 'g'))].map((m) => Number(m[1])));
    expect(highest('KEYS')).toBe(script.shape!.keys);
    expect(highest('ARGV')).toBe(script.shape!.args);
  });
});

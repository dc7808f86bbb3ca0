import { RingBuffer } from './ring-buffer';

describe('RingBuffer', () => {
  it('keeps the last `capacity` items, oldest first', () => {
    const buffer = new RingBuffer<number>(3);
    expect(buffer.toArray()).toEqual([]);
    for (let i = 1; i <= 2; i++) buffer.push(i);
    expect(buffer.toArray()).toEqual([1, 2]);
    for (let i = 3; i <= 7; i++) buffer.push(i);
    expect(buffer.toArray()).toEqual([5, 6, 7]);
    expect(buffer.size).toBe(3);
  });

  it('refuses a capacity that is not a positive integer', () => {
    expect(() => new RingBuffer(0)).toThrow('capacity must be a positive integer');
    expect(() => new RingBuffer(1.5)).toThrow('capacity must be a positive integer');
  });
});

import { deliveriesOfPendingReply, entriesOfReadReply, idBefore, parseAutoClaimIdsReply } from './stream-replies';

describe('stream reply parsing', () => {
  const entries = [
    ['1-0', ['a', '1', 'b', '2']],
    ['1-1', null],
  ];

  it('reads RESP2 ([[key, entries]]) and flattened RESP3 ([key, entries]) XREADGROUP replies alike', () => {
    const expected = [
      { id: '1-0', fields: { a: '1', b: '2' } },
      { id: '1-1', fields: null },
    ];
    expect(entriesOfReadReply([['s', entries]])).toEqual(expected);
    expect(entriesOfReadReply(['s', entries])).toEqual(expected);
    expect(entriesOfReadReply(null)).toEqual([]);
  });

  it('parses XAUTOCLAIM JUSTID with and without the Redis 7 deleted-ids element', () => {
    expect(parseAutoClaimIdsReply(['0-0', ['1-0', '1-1'], ['0-5']])).toEqual({ cursor: '0-0', ids: ['1-0', '1-1'], deleted: ['0-5'] });
    expect(parseAutoClaimIdsReply(['2-0', [null, '1-0']])).toEqual({ cursor: '2-0', ids: ['1-0'], deleted: [] });
  });

  it('gives the id just below an entry id, so a read from it starts at that entry', () => {
    expect(idBefore('1700000000000-5')).toBe('1700000000000-4');
    expect(idBefore('1700000000000-0')).toBe('1699999999999-18446744073709551615');
    expect(idBefore('18446744073709551615-0')).toBe('18446744073709551614-18446744073709551615');
    expect(idBefore('0-1')).toBe('0-0');
  });

  it('takes delivery counts from the extended XPENDING form', () => {
    expect(deliveriesOfPendingReply([['1-0', 'c', 12, 3]])).toEqual(new Map([['1-0', 3]]));
  });
});

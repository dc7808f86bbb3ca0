import { deliveriesOfPendingReply, entriesOfReadReply, parseAutoClaimReply } from './stream-replies';

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

  it('parses XAUTOCLAIM with and without the Redis 7 deleted-ids element', () => {
    expect(parseAutoClaimReply(['0-0', [entries[0]], ['0-5']])).toEqual({
      cursor: '0-0',
      entries: [{ id: '1-0', fields: { a: '1', b: '2' } }],
      deleted: ['0-5'],
    });
    expect(parseAutoClaimReply(['2-0', [null, entries[0]]]).entries).toHaveLength(1);
  });

  it('takes delivery counts from the extended XPENDING form', () => {
    expect(deliveriesOfPendingReply([['1-0', 'c', 12, 3]])).toEqual(new Map([['1-0', 3]]));
  });
});

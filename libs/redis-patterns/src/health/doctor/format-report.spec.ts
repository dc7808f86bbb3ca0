import { formatReport } from './format-report';

describe('formatReport', () => {
  it('prints one line per check, its evidence and fix indented under it, and a summary', () => {
    const text = formatReport({
      checks: [
        { name: 'connectivity', status: 'pass', reason: 'PONG' },
        { name: 'big-keys', status: 'warn', reason: '1 big key', evidence: ['k (hash, 2000000 elements, 90 MB)'], fix: 'Split it.' },
        { name: 'permissions', status: 'fail', reason: 'refused' },
      ],
      ok: false,
      exitCode: 1,
    });
    expect(text.split('\n')).toEqual([
      'PASS  connectivity  PONG',
      'WARN  big-keys      1 big key',
      '                    · k (hash, 2000000 elements, 90 MB)',
      '                    fix: Split it.',
      'FAIL  permissions   refused',
      'FAILED: 1 pass, 1 warn, 1 fail',
    ]);
  });
});

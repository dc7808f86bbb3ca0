import { parseInfo, parseInfoFields } from './parse-info';

describe('parseInfo', () => {
  it('reads the fields of an INFO reply and of its comma-separated values', () => {
    const info = parseInfo(
      '# Replication\r\nrole:master\r\nslave0:ip=10.0.0.2,port=6380,state=online,offset=42,lag=0\r\n\r\n# Commandstats\r\ncmdstat_keys:calls=3,usec=9',
    );
    expect(info.role).toBe('master');
    expect(parseInfoFields(info.slave0)).toEqual({ ip: '10.0.0.2', port: '6380', state: 'online', offset: '42', lag: '0' });
    expect(parseInfoFields(info.cmdstat_keys)).toEqual({ calls: '3', usec: '9' });
    expect(parseInfoFields('')).toEqual({});
  });
});

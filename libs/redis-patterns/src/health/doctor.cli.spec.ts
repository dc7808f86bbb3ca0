import { parseDoctorArgs } from './doctor.cli';

describe('doctor arguments', () => {
  it('reads the big-key, top and ACL user options', () => {
    const options = parseDoctorArgs(['--top', '3', '--big-key-bytes', '1024', '--big-key-elements', '500', '--acl-user', 'app'], {});
    expect(options).toMatchObject({ topKeys: 3, bigKeyBytes: 1024, bigKeyElements: 500, aclUser: 'app', json: false });
  });

  it.each([[['--top', '0']], [['--big-key-bytes', 'ten']], [['--acl-user']], [['--acl-user', '--json']]])('refuses %j', (argv) => {
    expect(() => parseDoctorArgs(argv, {})).toThrow(/expects/);
  });
});

import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

/** An ACL user of the shared standalone test server, for specs of how the module meets a restricted user. */
export interface AclUser {
  readonly name: string;
  /** `redis://<name>:<password>@host:port` of the standalone server. */
  readonly url: string;
  /** Applies more rules (e.g. `['-@scripting']`); connections already authenticated as the user follow them at once. */
  change(rules: readonly string[]): Promise<void>;
  /** Deletes the user (which closes its connections). Call it in afterAll. */
  remove(): Promise<void>;
}

/**
 * Creates a user on the standalone server with `rules` (e.g. `['~*', '+@all', '-@scripting']`) and a random name and
 * password, through an admin connection of the test's own.
 */
export async function createAclUser(label: string, rules: readonly string[]): Promise<AclUser> {
  const base = process.env.REDIS_URL_STANDALONE;
  if (!base) throw new Error('The standalone topology is not running: set REDIS_TOPOLOGIES to include "standalone".');
  const admin = new Redis(base, { maxRetriesPerRequest: 1 });
  const name = `${label}-${randomBytes(4).toString('hex')}`;
  const password = randomBytes(8).toString('hex');
  const change = async (next: readonly string[]): Promise<void> => {
    await admin.call('ACL', 'SETUSER', name, ...next);
  };
  await change(['reset', 'on', `>${password}`, ...rules]);
  const url = new URL(base);
  url.username = name;
  url.password = password;
  return {
    name,
    url: url.toString(),
    change,
    remove: async () => {
      await admin.call('ACL', 'DELUSER', name);
      admin.disconnect();
    },
  };
}

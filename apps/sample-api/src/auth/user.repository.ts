import { Injectable } from '@nestjs/common';
import { scryptSync, timingSafeEqual } from 'node:crypto';
import { simulatedLatency } from '../common/simulated-latency';

export interface User {
  username: string;
  displayName: string;
}

interface UserRow extends User {
  salt: string;
  hash: Buffer;
}

/** Demo accounts: alice, bob and carol, each with the password "demo-password". */
@Injectable()
export class UserRepository {
  private readonly rows = new Map<string, UserRow>();

  constructor() {
    for (const [username, displayName] of [
      ['alice', 'Alice'],
      ['bob', 'Bob'],
      ['carol', 'Carol'],
    ]) {
      const salt = `salt-${username}`;
      this.rows.set(username, { username, displayName, salt, hash: scryptSync('demo-password', salt, 32) });
    }
  }

  /** The user when the password matches; compared in constant time. */
  async verify(username: string, password: string): Promise<User | undefined> {
    await simulatedLatency();
    const row = this.rows.get(username);
    if (!row) return undefined;
    const candidate = scryptSync(password, row.salt, 32);
    return timingSafeEqual(candidate, row.hash) ? { username: row.username, displayName: row.displayName } : undefined;
  }
}

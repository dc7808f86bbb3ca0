import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { KeyBuilder } from '../core/keys/key-builder';
import { decodeFields, encodeFields, type SessionData } from './session-codec';
import { SESSIONS_SETTINGS, type SessionsSettings } from './sessions.options';
import { SESSIONS_STORE, type SessionsStore } from './sessions.store';
import { checkName, checkTtlMs } from './structure-args';

/** Options of {@link SessionStore.create}. */
export interface CreateSessionOptions {
  /** Idle (sliding) lifetime in ms; default `sessions.defaultTtlMs` (one day). */
  ttlMs?: number;
  /** Absolute lifetime in ms from now, never extended by `touch`; default `sessions.maxLifetimeMs` (none). */
  maxLifetimeMs?: number;
}

/** Options of {@link SessionStore.touch}. */
export interface TouchSessionOptions {
  /** Idle lifetime to apply now, in ms; default: the session's own TTL from `create`. */
  ttlMs?: number;
}

/**
 * Server-side sessions stored as one Redis hash per session, one hash field per session field.
 *
 * - `create` writes the hash and its TTL in one script (invariant 1) and returns a 256-bit random id.
 * - `update` writes only the fields it is given (HSET/HDEL), so concurrent requests that change different fields
 *   never lose each other's writes; it never creates a session, so nothing resurrects one after `destroy`.
 * - `touch` slides the idle TTL, capped by the absolute lifetime on the server clock.
 *
 * Redis errors propagate: a session read that fails is never treated as "anonymous" (fail closed). An outage rejects
 * with `RedisUnavailableError` (503 with `Retry-After` over HTTP).
 *
 * @example
 * const id = await sessions.create({ userId: 42 }, { ttlMs: 1_800_000, maxLifetimeMs: 43_200_000 });
 * await sessions.update(id, { cart: ['sku-1'] });
 * await sessions.touch(id);
 */
@Injectable()
export class SessionStore {
  private readonly defaultTtlMs: number;
  private readonly maxLifetimeMs?: number;

  /** Created by the module's dependency injection; not part of the public API. @internal */
  constructor(
    private readonly keys: KeyBuilder,
    @Inject(SESSIONS_SETTINGS) settings: SessionsSettings,
    @Inject(SESSIONS_STORE) private readonly store: SessionsStore,
  ) {
    this.defaultTtlMs = settings.defaultTtlMs;
    this.maxLifetimeMs = settings.maxLifetimeMs;
  }

  /** Creates a session holding `data`; returns its id (43 base64url characters, 256 random bits). */
  async create(data: SessionData = {}, options: CreateSessionOptions = {}): Promise<string> {
    // Fields given as `undefined` are simply not stored.
    const { set } = encodeFields(data, 'data');
    const ttl = checkTtlMs(options.ttlMs, 'options.ttlMs', this.defaultTtlMs);
    const life = options.maxLifetimeMs ?? this.maxLifetimeMs;
    const lifeMs = life === undefined ? 0 : checkTtlMs(life, 'options.maxLifetimeMs', 0);
    // A collision of 256-bit random ids is not a practical event; the script refuses to overwrite one anyway.
    for (;;) {
      const id = randomBytes(32).toString('base64url');
      if (await this.store.create(this.key(id), ttl, lifeMs, set)) return id;
    }
  }

  /** The session's data, or `null` when it does not exist (never created, expired or destroyed). */
  async get<T extends SessionData = SessionData>(id: string): Promise<T | null> {
    const hash = await this.store.readAll(this.key(checkName(id, 'id')));
    if (Object.keys(hash).length === 0) return null;
    return decodeFields(hash) as T;
  }

  /**
   * Sets the fields of `patch` (a field set to `undefined` is removed) and leaves every other field alone.
   * Does not change the TTL. Returns `false`, writing nothing, when the session does not exist.
   */
  async update(id: string, patch: SessionData): Promise<boolean> {
    const key = this.key(checkName(id, 'id'));
    const { set, remove } = encodeFields(patch, 'patch');
    return this.store.update(key, set, remove);
  }

  /**
   * Slides the expiration: the session lives `ttlMs` (default: its own TTL from `create`) from now, but never
   * past its absolute lifetime. Returns `false` when the session does not exist.
   */
  async touch(id: string, options: TouchSessionOptions = {}): Promise<boolean> {
    const key = this.key(checkName(id, 'id'));
    const ttl = options.ttlMs === undefined ? 0 : checkTtlMs(options.ttlMs, 'options.ttlMs', 0);
    return (await this.store.touch(key, ttl)) > 0;
  }

  /** Deletes the session; later `update` and `touch` calls find nothing. Returns whether it existed. */
  async destroy(id: string): Promise<boolean> {
    return this.store.delete(this.key(checkName(id, 'id')));
  }

  private key(id: string): string {
    return this.keys.key('session', id);
  }
}

// Realtime connection tokens: HS256 JWTs with `sub` = the checksummed address, `exp`, and either `key` = the API
// key's id (so a revoked key's tokens stop working at once) or `wallet: true` for a wallet's own signed sign-in.
// The HMAC secret is generated once per store and kept in its settings (the Settings port: the data dir's settings
// table, or PostgreSQL's, shared by every process), so tokens survive restarts and any node verifies any node's.
import { randomBytes } from 'node:crypto';
import { SignJWT, jwtVerify, errors } from 'jose';
import { getSetting, putSetting, type Db } from '../store/sqlite/db.js';
import type { Settings } from '../store/settings.js';
import { isAddress } from '../protocol/address.js';

const SECRET_SETTING = 'realtime.jwtSecret';

export type TokenCheck =
  | { ok: true; address: string; /** The API key's id; undefined for a wallet sign-in. */ keyId: string | undefined; /** Seconds since the epoch. */ exp: number }
  | { ok: false; reason: 'expired' | 'invalid' | 'revoked' };

/** The settings table of the SQLite data dir. */
export class SqliteSettings implements Settings {
  constructor(private readonly db: Db) {}

  getOrPut(key: string, value: string): Promise<string> {
    try {
      return Promise.resolve(
        this.db.transaction(() => {
          const stored = getSetting(this.db, key);
          if (stored !== undefined) return stored;
          putSetting(this.db, key, value);
          return value;
        })(),
      );
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }
}

export class RealtimeTokens {
  /**
   * The exchange's one issuer, shared by the token route and the WebSocket server. The secret is read (or made)
   * on first use, so a store that is not writable at start does not stop the start.
   */
  static ofSettings(settings: Settings, ttlSeconds: number, now: () => number, isKeyLive: (keyId: string) => boolean): RealtimeTokens {
    const load = async () => Buffer.from(await settings.getOrPut(SECRET_SETTING, randomBytes(32).toString('hex')), 'hex');
    return new RealtimeTokens(load, ttlSeconds, now, isKeyLive);
  }

  /** The secret once read; a failed read is tried again on the next use. */
  private key: Promise<Uint8Array> | undefined;

  constructor(
    private readonly secretSource: Uint8Array | (() => Promise<Uint8Array>),
    private readonly ttlSeconds: number,
    private readonly now: () => number,
    /** Whether the API key a token was issued for is still live. */
    private readonly isKeyLive: (keyId: string) => boolean,
  ) {}

  private secret(): Promise<Uint8Array> {
    if (this.key) return this.key;
    const source = this.secretSource;
    const key = typeof source === 'function' ? source() : Promise.resolve(source);
    this.key = key;
    key.catch(() => {
      if (this.key === key) this.key = undefined;
    });
    return key;
  }

  /** A token for an API key's address, or (without keyId) for a wallet that proved its address by signing. */
  async issue(address: string, keyId?: string): Promise<string> {
    const secret = await this.secret();
    const iat = Math.floor(this.now() / 1000);
    return new SignJWT(keyId === undefined ? { wallet: true } : { key: keyId })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(address)
      .setIssuedAt(iat)
      .setExpirationTime(iat + this.ttlSeconds)
      .sign(secret);
  }

  async verify(token: string): Promise<TokenCheck> {
    try {
      const { payload } = await jwtVerify(token, await this.secret(), {
        algorithms: ['HS256'],
        currentDate: new Date(this.now()),
        requiredClaims: ['sub', 'exp'],
      });
      const keyId = payload.key;
      const bound = typeof keyId === 'string' || (keyId === undefined && payload.wallet === true);
      if (!isAddress(payload.sub) || typeof payload.exp !== 'number' || !bound) {
        return { ok: false, reason: 'invalid' };
      }
      if (keyId !== undefined && !this.isKeyLive(keyId)) return { ok: false, reason: 'revoked' };
      return { ok: true, address: payload.sub, keyId, exp: payload.exp };
    } catch (err) {
      return { ok: false, reason: err instanceof errors.JWTExpired ? 'expired' : 'invalid' };
    }
  }
}

// Realtime connection tokens: HS256 JWTs with `sub` = the checksummed address, `exp`, and either `key` = the API
// key's id (so a revoked key's tokens stop working at once) or `wallet: true` for a wallet's own signed sign-in.
// The HMAC secret is generated once per data dir and kept in the settings table, so tokens survive restarts.
import { randomBytes } from 'node:crypto';
import { SignJWT, jwtVerify, errors } from 'jose';
import { getSetting, putSetting, type Db } from '../store/sqlite/db.js';
import { isAddress } from '../protocol/address.js';

const SECRET_SETTING = 'realtime.jwtSecret';

export type TokenCheck =
  | { ok: true; address: string; /** The API key's id; undefined for a wallet sign-in. */ keyId: string | undefined; /** Seconds since the epoch. */ exp: number }
  | { ok: false; reason: 'expired' | 'invalid' | 'revoked' };

function loadSecret(db: Db): Uint8Array {
  let hex = getSetting(db, SECRET_SETTING);
  if (!hex) {
    hex = randomBytes(32).toString('hex');
    putSetting(db, SECRET_SETTING, hex);
  }
  return Buffer.from(hex, 'hex');
}

export class RealtimeTokens {
  /**
   * The exchange's one issuer, shared by the token route and the WebSocket server. The secret is read (or made)
   * on first use, so a data dir that is not writable at start does not stop the start.
   */
  static ofDataDir(db: Db, ttlSeconds: number, now: () => number, isKeyLive: (keyId: string) => boolean): RealtimeTokens {
    return new RealtimeTokens(() => loadSecret(db), ttlSeconds, now, isKeyLive);
  }

  private key: Uint8Array | undefined;

  constructor(
    private readonly secretSource: Uint8Array | (() => Uint8Array),
    private readonly ttlSeconds: number,
    private readonly now: () => number,
    /** Whether the API key a token was issued for is still live. */
    private readonly isKeyLive: (keyId: string) => boolean,
  ) {}

  private get secret(): Uint8Array {
    return (this.key ??= typeof this.secretSource === 'function' ? this.secretSource() : this.secretSource);
  }

  /** A token for an API key's address, or (without keyId) for a wallet that proved its address by signing. */
  issue(address: string, keyId?: string): Promise<string> {
    const iat = Math.floor(this.now() / 1000);
    return new SignJWT(keyId === undefined ? { wallet: true } : { key: keyId })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(address)
      .setIssuedAt(iat)
      .setExpirationTime(iat + this.ttlSeconds)
      .sign(this.secret);
  }

  async verify(token: string): Promise<TokenCheck> {
    try {
      const { payload } = await jwtVerify(token, this.secret, {
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

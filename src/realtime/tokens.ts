// Realtime connection tokens: HS256 JWTs with `sub` = the API key's checksummed address, `key` = the API key's id
// (so a revoked key's tokens stop working at once) and `exp`.
// The HMAC secret is generated once per data dir and kept in the settings table, so tokens survive restarts.
import { randomBytes } from 'node:crypto';
import { SignJWT, jwtVerify, errors } from 'jose';
import type { AppContext } from '../context.js';
import { getSetting, putSetting, type Db } from '../store/db.js';
import { isAddress } from '../protocol/address.js';

const SECRET_SETTING = 'realtime.jwtSecret';

export type TokenCheck =
  | { ok: true; address: string; /** The API key's id. */ keyId: string; /** Seconds since the epoch. */ exp: number }
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
  private static readonly byContext = new WeakMap<AppContext, RealtimeTokens>();

  /** One instance per running exchange, shared by the token route and the WebSocket server. */
  static of(ctx: AppContext): RealtimeTokens {
    let t = RealtimeTokens.byContext.get(ctx);
    if (!t) {
      const live = (keyId: string) => ctx.apiKeys.isLive(keyId);
      t = new RealtimeTokens(loadSecret(ctx.db), ctx.config.realtimeTokenTtlSeconds, ctx.now, live);
      RealtimeTokens.byContext.set(ctx, t);
    }
    return t;
  }

  constructor(
    private readonly secret: Uint8Array,
    private readonly ttlSeconds: number,
    private readonly now: () => number,
    /** Whether the API key a token was issued for is still live. */
    private readonly isKeyLive: (keyId: string) => boolean,
  ) {}

  issue(address: string, keyId: string): Promise<string> {
    const iat = Math.floor(this.now() / 1000);
    return new SignJWT({ key: keyId })
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
      if (!isAddress(payload.sub) || typeof payload.exp !== 'number' || typeof keyId !== 'string') {
        return { ok: false, reason: 'invalid' };
      }
      if (!this.isKeyLive(keyId)) return { ok: false, reason: 'revoked' };
      return { ok: true, address: payload.sub, keyId, exp: payload.exp };
    } catch (err) {
      return { ok: false, reason: err instanceof errors.JWTExpired ? 'expired' : 'invalid' };
    }
  }
}

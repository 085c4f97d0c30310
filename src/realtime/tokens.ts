// Realtime connection tokens: HS256 JWTs with `sub` = the API key's checksummed address and `exp`.
// The HMAC secret is generated once per data dir and kept in the settings table, so tokens survive restarts.
import { randomBytes } from 'node:crypto';
import { SignJWT, jwtVerify, errors } from 'jose';
import type { AppContext } from '../context.js';
import { getSetting, putSetting, type Db } from '../store/db.js';
import { isAddress } from '../protocol/address.js';

const SECRET_SETTING = 'realtime.jwtSecret';

export type TokenCheck =
  | { ok: true; address: string; /** Seconds since the epoch. */ exp: number }
  | { ok: false; reason: 'expired' | 'invalid' };

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
    if (!t) RealtimeTokens.byContext.set(ctx, (t = new RealtimeTokens(loadSecret(ctx.db), ctx.config.realtimeTokenTtlSeconds, ctx.now)));
    return t;
  }

  constructor(
    private readonly secret: Uint8Array,
    private readonly ttlSeconds: number,
    private readonly now: () => number,
  ) {}

  issue(address: string): Promise<string> {
    const iat = Math.floor(this.now() / 1000);
    return new SignJWT({})
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
      if (!isAddress(payload.sub) || typeof payload.exp !== 'number') return { ok: false, reason: 'invalid' };
      return { ok: true, address: payload.sub, exp: payload.exp };
    } catch (err) {
      return { ok: false, reason: err instanceof errors.JWTExpired ? 'expired' : 'invalid' };
    }
  }
}

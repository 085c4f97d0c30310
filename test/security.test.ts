// The security review as tests: forged, pasted, malleated and replayed signatures, cancels and fills for someone
// else, keys of another address, the admin guard on every /admin route, revoked keys. Each refusal is checked for its
// exact status and errorCode and for leaving every piece of state (API views, engine, journal, SQLite) untouched.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { hashMessage, type Hex, type PrivateKeyAccount } from 'viem';
import { publicKeyToAddress } from 'viem/accounts';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { startTestExchange, type TestExchange, type TestResponse } from './helpers/server.js';
import { defaultConfig } from '../src/config.js';
import { E18, USDC, newWallet, signedCancel, signedFill, signedOrder, type FillInput } from './helpers/wallets.js';
import { createApiKey, fetchToken, rawConnected, wsUrl, type RawClient } from './helpers/realtime.js';
import { stateSnapshot } from './helpers/fuzz-state.js';
import { routeName, routesFromOpenApi } from './helpers/fuzz-routes.js';
import { sendRaw } from './helpers/fuzz-http.js';

interface MarketInfo {
  marketHash: string;
  exchangeEventId: string;
  liveEnabled: boolean;
}

describe('security review', () => {
  let ex: TestExchange;
  let markets: MarketInfo[];
  const victim = newWallet();
  const attacker = newWallet();
  const taker = newWallet();
  const everyone = [victim, attacker, taker].map((w) => w.address);
  let victimOrder: Awaited<ReturnType<typeof signedOrder>>;
  let victimOtherOrder: Awaited<ReturnType<typeof signedOrder>>;

  const config = () => ex.ctx.config;
  const snapshot = () => stateSnapshot(ex, { makers: everyone, addresses: everyone });
  const orderStatus = async (hash: string) => (await ex.get(`/orders?orderHashes=${hash}`)).body.data[0].orderStatus as string;

  /** Sends a request and expects exactly this refusal, with nothing changed anywhere. */
  async function expectRefused(send: () => Promise<TestResponse>, status: number, errorCode: string): Promise<void> {
    const before = await snapshot();
    const res = await send();
    expect([res.status, res.body.status, res.body.errorCode]).toEqual([status, 'failure', errorCode]);
    expect(typeof res.body.message).toBe('string');
    expect(await snapshot()).toEqual(before);
  }

  const postOrders = (...bodies: object[]) => ex.post('/orders/new', { orders: bodies });
  const order = (w: PrivateKeyAccount, marketHash: string, extra: { isMakerBettingOutcomeOne?: boolean } = {}) =>
    signedOrder(w, config(), {
      marketHash,
      totalBetSize: 20n * USDC,
      percentageOdds: 40n * E18,
      isMakerBettingOutcomeOne: extra.isMakerBettingOutcomeOne ?? true,
    });

  beforeAll(async () => {
    ex = await startTestExchange({
      demo: true,
      rateLimits: { ...defaultConfig().rateLimits, enabled: false },
      chainConfirmationDelayMs: 3_600_000, // fills stay PENDING: nothing moves between two snapshots
      bettingDelay: { preGameMs: 300, inPlayMs: 300, inPlayBySportMs: {}, inPlayByLeagueMs: {} },
    });
    const active = (await ex.get('/markets/active?pageSize=100&type=52')).body.data.markets as MarketInfo[];
    markets = active.filter((m) => !m.liveEnabled);
    expect(markets.length).toBeGreaterThan(5);
    for (const w of everyone) {
      const funded = await ex.admin('POST', '/admin/faucet', { address: w, amount: (1000n * USDC).toString() });
      expect(funded.status).toBe(200);
    }
    victimOrder = await order(victim, markets[0]!.marketHash);
    victimOtherOrder = await order(victim, markets[1]!.marketHash);
    expect((await postOrders(victimOrder.body, victimOtherOrder.body)).body.data.inserted).toBe(2);
  });
  afterAll(async () => ex.destroy());

  describe('orders', () => {
    it('an order signed by one address but carrying another maker address is 403 MAKER_SIGNATURE_MISMATCH', async () => {
      // The attacker signs the hash of an order naming the victim as maker.
      const impersonating = { ...attacker, address: victim.address } as PrivateKeyAccount;
      const forged = await order(impersonating, markets[2]!.marketHash);
      expect(forged.body.maker).toBe(victim.address);
      await expectRefused(() => postOrders(forged.body), 403, 'MAKER_SIGNATURE_MISMATCH');
      // The attacker's own valid order with the maker field rewritten.
      const own = await order(attacker, markets[2]!.marketHash);
      await expectRefused(() => postOrders({ ...own.body, maker: victim.address }), 403, 'MAKER_SIGNATURE_MISMATCH');
    });

    it('a valid signature of a different order pasted onto this one is 403', async () => {
      const a = await order(victim, markets[2]!.marketHash);
      const b = await order(victim, markets[2]!.marketHash, { isMakerBettingOutcomeOne: false });
      await expectRefused(() => postOrders({ ...a.body, signature: b.body.signature }), 403, 'MAKER_SIGNATURE_MISMATCH');
      // One batch with one bad order posts nothing, not even the good one.
      await expectRefused(() => postOrders(b.body, { ...a.body, signature: victimOrder.body.signature }), 403, 'MAKER_SIGNATURE_MISMATCH');
    });

    it('a forged signature of the right length made of random bytes is 403', async () => {
      const o = await order(victim, markets[2]!.marketHash);
      const forgeries = [
        '0x' + randomBytes(65).toString('hex'),
        '0x' + randomBytes(64).toString('hex') + '1b',
        '0x' + randomBytes(64).toString('hex') + '1c',
        '0x' + '00'.repeat(64) + '1b',
        '0x' + 'ff'.repeat(65),
      ];
      for (const signature of forgeries) {
        await expectRefused(() => postOrders({ ...o.body, signature }), 403, 'MAKER_SIGNATURE_MISMATCH');
      }
    });

    it('a high-s malleated signature of a valid order is refused although it recovers the maker', async () => {
      const o = await order(victim, markets[3]!.marketHash);
      const sig = o.body.signature.slice(2);
      const n = secp256k1.Point.CURVE().n;
      const s = BigInt('0x' + sig.slice(64, 128));
      const v = parseInt(sig.slice(128, 130), 16);
      const highS = n - s;
      expect(highS > n / 2n).toBe(true);
      const malleated = `0x${sig.slice(0, 64)}${highS.toString(16).padStart(64, '0')}${(v === 27 ? 28 : 27).toString(16)}` as Hex;
      // It is a valid ECDSA signature by the maker: recovery on the curve gives the maker's key.
      const compact = Buffer.from(malleated.slice(2, 130), 'hex');
      const publicKey = secp256k1.Signature.fromBytes(compact, 'compact')
        .addRecoveryBit(v === 27 ? 1 : 0)
        .recoverPublicKey(Buffer.from(hashMessage({ raw: o.hash as Hex }).slice(2), 'hex'))
        .toBytes(false);
      expect(publicKeyToAddress(`0x${Buffer.from(publicKey).toString('hex')}`)).toBe(victim.address);

      await expectRefused(() => postOrders({ ...o.body, signature: malleated }), 403, 'MAKER_SIGNATURE_MISMATCH');
      // The low-s original is still good, and the malleated twin did not make it a duplicate.
      const ok = await postOrders(o.body);
      expect(ok.body.data).toEqual({ orders: [o.hash], statuses: { [o.hash]: 'OK' }, inserted: 1 });
    });
  });

  describe('cancels', () => {
    it('v2, event and all cancels signed by the attacker for the victim are 403 and cancel nothing', async () => {
      const v2 = await signedCancel(attacker, config(), 'v2', { orderHashes: [victimOrder.hash] });
      await expectRefused(() => ex.post('/orders/cancel/v2', { ...v2, maker: victim.address }), 403, 'MAKER_SIGNATURE_MISMATCH');
      const event = await signedCancel(attacker, config(), 'event', { exchangeEventId: markets[0]!.exchangeEventId });
      await expectRefused(() => ex.post('/orders/cancel/event', { ...event, maker: victim.address }), 403, 'MAKER_SIGNATURE_MISMATCH');
      const all = await signedCancel(attacker, config(), 'all');
      await expectRefused(() => ex.post('/orders/cancel/all', { ...all, maker: victim.address }), 403, 'MAKER_SIGNATURE_MISMATCH');
      expect(await orderStatus(victimOrder.hash)).toBe('ACTIVE');
    });

    it("the attacker's own valid cancels never reach the victim's orders", async () => {
      const v2 = await ex.post('/orders/cancel/v2', await signedCancel(attacker, config(), 'v2', { orderHashes: [victimOrder.hash, victimOtherOrder.hash] }));
      expect(v2.body).toEqual({
        status: 'success',
        data: {
          cancelledCount: 0,
          orders: [],
          notCancelled: [
            { orderHash: victimOrder.hash, reason: 'not_found_or_inactive' },
            { orderHash: victimOtherOrder.hash, reason: 'not_found_or_inactive' },
          ],
        },
      });
      const event = await ex.post('/orders/cancel/event', await signedCancel(attacker, config(), 'event', { exchangeEventId: markets[0]!.exchangeEventId }));
      expect(event.body.data).toEqual({ cancelledCount: 0, orders: [], notCancelled: [] });
      const all = await ex.post('/orders/cancel/all', await signedCancel(attacker, config(), 'all'));
      expect(all.body.data).toEqual({ cancelledCount: 0, orders: [], notCancelled: [] });
      expect(await orderStatus(victimOrder.hash)).toBe('ACTIVE');
      expect(await orderStatus(victimOtherOrder.hash)).toBe('ACTIVE');
    });

    it('a cancel signed for another chain id or another domain name is 403', async () => {
      const c = config();
      const otherChain = { ...c, chainId: 79479957 };
      const wrongNames = [
        { ...c, domainNames: { ...c.domainNames, cancelAll: c.domainNames.cancelV2 } },
        { ...c, domainNames: { ...c.domainNames, cancelAll: c.domainNames.fill } },
        { ...c, domainNames: { ...c.domainNames, cancelAll: 'CancelAllOrdersSportX' } },
      ];
      for (const signingConfig of [otherChain, ...wrongNames]) {
        await expectRefused(async () => ex.post('/orders/cancel/all', await signedCancel(victim, signingConfig, 'all')), 403, 'MAKER_SIGNATURE_MISMATCH');
      }
      const v2OtherChain = await signedCancel(victim, otherChain, 'v2', { orderHashes: [victimOrder.hash] });
      await expectRefused(() => ex.post('/orders/cancel/v2', v2OtherChain), 403, 'MAKER_SIGNATURE_MISMATCH');
      const v2AsEvent = await signedCancel(victim, { ...c, domainNames: { ...c.domainNames, cancelV2: c.domainNames.cancelEvent } }, 'v2', {
        orderHashes: [victimOrder.hash],
      });
      await expectRefused(() => ex.post('/orders/cancel/v2', v2AsEvent), 403, 'MAKER_SIGNATURE_MISMATCH');
      const eventOtherChain = await signedCancel(victim, otherChain, 'event', { exchangeEventId: markets[0]!.exchangeEventId });
      await expectRefused(() => ex.post('/orders/cancel/event', eventOtherChain), 403, 'MAKER_SIGNATURE_MISMATCH');
      expect(await orderStatus(victimOrder.hash)).toBe('ACTIVE');
    });

    it('a replayed cancel is 409 CANCEL_REQUEST_ALREADY_PROCESSED (also with the salt in upper case); stale and future timestamps are 400', async () => {
      const target = await order(victim, markets[4]!.marketHash);
      expect((await postOrders(target.body)).body.data.inserted).toBe(1);
      const body = await signedCancel(victim, config(), 'v2', { orderHashes: [target.hash] });
      const first = await ex.post('/orders/cancel/v2', body);
      expect(first.body.data).toEqual({ cancelledCount: 1, orders: [{ orderHash: target.hash, pendingFills: [] }], notCancelled: [] });
      await expectRefused(() => ex.post('/orders/cancel/v2', body), 409, 'CANCEL_REQUEST_ALREADY_PROCESSED');
      await expectRefused(() => ex.post('/orders/cancel/v2', { ...body, salt: '0x' + body.salt.slice(2).toUpperCase() }), 409, 'CANCEL_REQUEST_ALREADY_PROCESSED');

      const now = Math.floor(Date.now() / 1000);
      for (const timestamp of [now - 120, now + 120, 0]) {
        const stale = await signedCancel(victim, config(), 'all', { timestamp });
        await expectRefused(() => ex.post('/orders/cancel/all', stale), 400, 'STALE_TIMESTAMP');
      }
      expect(await orderStatus(victimOrder.hash)).toBe('ACTIVE');
    });
  });

  describe('fills', () => {
    let market: string;
    const fillInput = (over: Partial<FillInput> = {}): FillInput => ({
      market,
      isTakerBettingOutcomeOne: false,
      stakeWei: 3n * USDC,
      desiredOdds: 60n * E18,
      ...over,
    });

    beforeAll(async () => {
      market = markets[5]!.marketHash;
      const liquidity = await signedOrder(victim, config(), { marketHash: market, totalBetSize: 200n * USDC, percentageOdds: 40n * E18, isMakerBettingOutcomeOne: true });
      expect((await postOrders(liquidity.body)).body.data.inserted).toBe(1);
    });

    it('a fill whose body differs from what the taker signed is 403 TAKER_SIGNATURE_MISMATCH', async () => {
      const signed = await signedFill(taker, config(), fillInput());
      const tampered: Record<string, unknown>[] = [
        { stakeWei: (4n * USDC).toString() },
        { market: markets[6]!.marketHash },
        { isTakerBettingOutcomeOne: true },
        { taker: attacker.address },
        { desiredOdds: (55n * E18).toString() },
        { oddsSlippage: 5 },
        { fillSalt: (BigInt(signed.fillSalt) + 1n).toString() },
      ];
      for (const change of tampered) {
        await expectRefused(() => ex.post('/orders/fill/v2', { ...signed, ...change }), 403, 'TAKER_SIGNATURE_MISMATCH');
      }
      // Signed by the attacker, naming the taker.
      const byAttacker = await signedFill(attacker, config(), fillInput());
      await expectRefused(() => ex.post('/orders/fill/v2', { ...byAttacker, taker: taker.address }), 403, 'TAKER_SIGNATURE_MISMATCH');
    });

    it('a replayed fill salt is 409 FILL_ALREADY_SUBMITTED, however the salt is written', async () => {
      const signed = await signedFill(taker, config(), fillInput());
      const first = await ex.post('/orders/fill/v2', signed);
      expect(first.status).toBe(200);
      expect(first.body.data).toMatchObject({ totalFilled: '3000000', isPartialFill: false });
      await expectRefused(() => ex.post('/orders/fill/v2', signed), 409, 'FILL_ALREADY_SUBMITTED');
      const asHex = '0x' + BigInt(signed.fillSalt).toString(16);
      await expectRefused(() => ex.post('/orders/fill/v2', { ...signed, fillSalt: asHex }), 409, 'FILL_ALREADY_SUBMITTED');
      // A new signature over another stake with the same salt is the same fill id.
      const sameSalt = await signedFill(taker, config(), fillInput({ stakeWei: 2n * USDC, fillSalt: BigInt(signed.fillSalt) }));
      await expectRefused(() => ex.post('/orders/fill/v2', sameSalt), 409, 'FILL_ALREADY_SUBMITTED');
    });

    it('two concurrent submissions of the same fill: exactly one 200, the other 409, one fill recorded', async () => {
      const engine = ex.ctx.trading.engine;
      const fillsBefore = engine.stats().usedFills;
      const pendingBefore = engine.pendingTakerStakeOf(taker.address) + engine.ledger.escrowOf(taker.address);
      const signed = await signedFill(taker, config(), fillInput({ stakeWei: 5n * USDC }));
      // Both arrive within the 300 ms betting delay, so both are in flight at once.
      const results = await Promise.all([ex.post('/orders/fill/v2', signed), ex.post('/orders/fill/v2', signed)]);
      const statuses = results.map((r) => r.status).sort();
      expect(statuses).toEqual([200, 409]);
      expect(results.find((r) => r.status === 409)!.body.errorCode).toBe('FILL_ALREADY_SUBMITTED');
      expect(results.find((r) => r.status === 200)!.body.data.totalFilled).toBe('5000000');
      expect(engine.stats().usedFills).toBe(fillsBefore + 1);
      expect(engine.pendingTakerStakeOf(taker.address) + engine.ledger.escrowOf(taker.address) - pendingBefore).toBe(5n * USDC);
    });
  });

  describe('API keys and realtime', () => {
    let attackerKey: string;
    const clients: RawClient[] = [];
    beforeAll(async () => {
      attackerKey = await createApiKey(ex, attacker.address);
    });
    afterAll(() => clients.forEach((c) => c.close()));

    it("a heartbeat with another address's API key is 403 API_KEY_ADDRESS_MISMATCH", async () => {
      for (const timeoutSeconds of [1, 0, 60]) {
        await expectRefused(() => ex.post('/heartbeat', { requestor: victim.address, timeoutSeconds }, { 'x-api-key': attackerKey }), 403, 'API_KEY_ADDRESS_MISMATCH');
      }
      await expectRefused(() => ex.post('/heartbeat', { requestor: victim.address, timeoutSeconds: 1 }, { 'x-api-key': 'x' + attackerKey }), 401, 'INVALID_API_KEY');
      await expectRefused(() => ex.post('/heartbeat', { requestor: victim.address, timeoutSeconds: 1 }), 401, 'MISSING_API_KEY');
    });

    it("a realtime token from the attacker's key subscribes to the attacker's active_orders only (103 for the victim's)", async () => {
      const token = await fetchToken(ex, attackerKey);
      const client = await rawConnected(wsUrl(ex), token);
      clients.push(client);
      const denied = await client.call({ subscribe: { channel: `active_orders:${victim.address}` } });
      expect(denied.error).toMatchObject({ code: 103 });
      const deniedLower = await client.call({ subscribe: { channel: `active_orders:${victim.address.toLowerCase()}` } });
      expect(deniedLower.error).toMatchObject({ code: 103 });
      const history = await client.call({ history: { channel: `active_orders:${victim.address}` } });
      expect(history.error).toMatchObject({ code: 103 });
      const own = await client.call({ subscribe: { channel: `active_orders:${attacker.address}` } });
      expect(own.error).toBeUndefined();
      expect(own.subscribe).toBeDefined();
    });
  });

  describe('admin guard', () => {
    it('every /admin route in /openapi.json is 401 UNAUTHORIZED without the right bearer token, and nothing changes', async () => {
      const routes = routesFromOpenApi((await ex.get('/openapi.json')).body).filter((r) => r.admin);
      expect(routes.length).toBeGreaterThanOrEqual(17);
      const keyId = (await ex.admin('POST', '/admin/api-keys', { address: victim.address })).body.data.id as string;
      const m = markets[0]!;
      const pathValues: Record<string, string> = { marketHash: m.marketHash, exchangeEventId: m.exchangeEventId, address: victim.address, id: keyId };
      // Bodies the route would accept with the token, so the guard alone stands between them and a change.
      const validBodies: Record<string, unknown> = {
        'POST /admin/sports': { label: 'Curling' },
        'POST /admin/leagues': { sportId: 1, label: 'League' },
        'POST /admin/teams': { sportId: 1, name: 'Team' },
        'POST /admin/markets/{marketHash}/status': { status: 'SUSPENDED' },
        'POST /admin/markets/{marketHash}/report': { outcome: 1 },
        'POST /admin/fixtures/{exchangeEventId}/status': { status: 3 },
        'POST /admin/fixtures/{exchangeEventId}/result': { teamOneScore: 1, teamTwoScore: 0 },
        'POST /admin/api-keys': { address: attacker.address },
        'POST /admin/faucet': { address: attacker.address, amount: '1000000000' },
        'POST /admin/chain/transfer': { from: victim.address, to: attacker.address, amount: '1000000' },
      };
      const token = ex.ctx.adminToken;
      const wrongAuth: Record<string, string>[] = [
        {},
        { authorization: 'Bearer wrong-token' },
        { authorization: 'Bearer ' },
        { authorization: 'Bearer' },
        { authorization: token },
        { authorization: `Basic ${Buffer.from(`admin:${token}`).toString('base64')}` },
        { 'x-api-key': token },
        { 'x-admin-token': token },
        { cookie: `adminToken=${token}` },
      ];
      const before = await snapshot();
      let checked = 0;
      for (const route of routes) {
        const path = route.template.replace(/\{(\w+)\}/g, (_m, name: string) => pathValues[name]!);
        const body = validBodies[routeName(route)];
        for (const auth of wrongAuth) {
          const res = await sendRaw(ex.url, {
            method: route.method,
            path,
            headers: { ...auth, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
            ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
          });
          expect([routeName(route), JSON.stringify(auth), res.status, res.json]).toEqual([
            routeName(route),
            JSON.stringify(auth),
            401,
            { status: 'failure', errorCode: 'UNAUTHORIZED', message: 'admin routes need Authorization: Bearer <admin token>' },
          ]);
          checked++;
        }
      }
      expect(checked).toBe(routes.length * wrongAuth.length);
      expect(await snapshot()).toEqual(before);
      // The key that DELETE /admin/api-keys/:id was aimed at is still live.
      const stillLive = ex.ctx.db!.prepare('SELECT revoked_at FROM api_keys WHERE id = ?').get(keyId) as { revoked_at: string | null };
      expect(stillLive.revoked_at).toBeNull();
    });
  });

  describe('revoked API keys', () => {
    it('a revoked key no longer works for /heartbeat or /user/realtime-token/api-key (401)', async () => {
      const owner = newWallet();
      const created = (await ex.admin('POST', '/admin/api-keys', { address: owner.address })).body.data as { id: string; apiKey: string };
      const key = created.apiKey;
      const beat = await ex.post('/heartbeat', { requestor: owner.address, timeoutSeconds: 0 }, { 'x-api-key': key });
      expect(beat.status).toBe(200);
      expect((await ex.get('/user/realtime-token/api-key', { 'x-api-key': key })).status).toBe(200);

      const revoked = await ex.admin('DELETE', `/admin/api-keys/${created.id}`);
      expect(revoked.body).toEqual({ status: 'success', data: { id: created.id, revoked: true } });

      await expectRefused(() => ex.post('/heartbeat', { requestor: owner.address, timeoutSeconds: 30 }, { 'x-api-key': key }), 401, 'INVALID_API_KEY');
      await expectRefused(() => ex.get('/user/realtime-token/api-key', { 'x-api-key': key }), 401, 'INVALID_API_KEY');
      await expectRefused(() => ex.admin('DELETE', `/admin/api-keys/${created.id}`), 404, 'API_KEY_NOT_FOUND');
    });
  });
});

// /openapi.json documents every operation's replies: a 200 schema and the failure envelope for errors. Real
// replies of every operation are checked against the documented schema with no unlisted field allowed, and the
// signed examples of the write endpoints carry signatures viem recovers to the example wallet.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv, type ValidateFunction } from 'ajv';
import { recoverMessageAddress, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { startTestExchange, type TestExchange, type TestResponse } from './helpers/server.js';
import { betTestConfig, fund, waitFor } from './helpers/bets.js';
import { defaultConfig } from '../src/config.js';
import { newWallet, randomHex32, signedCancel, signedFill, signedOrder, USDC } from './helpers/wallets.js';
import { createApiKey } from './helpers/realtime.js';
import { parlaySigning, signedParlayRequest } from './helpers/parlays.js';
import { EXAMPLE_PRIVATE_KEY } from '../src/api/schemas/examples.js';

const E18 = 10n ** 18n;
type Schema = Record<string, unknown>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Doc = { paths: Record<string, Record<string, any>> };

let ex: TestExchange;
let doc: Doc;

beforeAll(async () => {
  // Demo mode: POST /user/demo-funds answers 200; a fee on singles (paid to a fee account: none is charged without one): settled trades and GET /admin/fees list fees.
  ex = await startTestExchange({ ...betTestConfig(), demo: true, fees: { ...defaultConfig().fees, singlesBps: 100, account: '0x00000000000000000000000000000000000000fe' } });
  doc = (await ex.get('/openapi.json')).body;
});
afterAll(() => ex?.destroy());

const operations = () =>
  Object.entries(doc.paths).flatMap(([path, methods]) => Object.keys(methods).map((method) => ({ path, method: method.toUpperCase() })));

const jsonSchema = (response: { content?: Record<string, { schema?: Schema }> } | undefined): Schema | undefined =>
  response?.content?.['application/json']?.schema;

/** The schema with every object closed: a reply field the schema does not list fails validation. */
function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Schema = Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, k === 'examples' || k === 'example' ? v : closed(v)]));
  if (out.properties && out.additionalProperties === undefined && out.patternProperties === undefined) out.additionalProperties = false;
  return out;
}

const ajv = new Ajv({ strict: false, allErrors: true });
const compiled = new Map<Schema, ValidateFunction>();
const validator = (schema: Schema) => {
  let v = compiled.get(schema);
  if (!v) compiled.set(schema, (v = ajv.compile(closed(schema) as Schema)));
  return v;
};

describe('/openapi.json', () => {
  it('gives every operation a 200 schema and the failure envelope for 4xx and 5xx', () => {
    const ops = operations();
    expect(ops.length).toBeGreaterThanOrEqual(43);
    const missing: string[] = [];
    for (const { path, method } of ops) {
      const responses = doc.paths[path]![method.toLowerCase()].responses ?? {};
      const ok = jsonSchema(responses['200']);
      if (!ok || (ok.type !== 'object' && !ok.properties)) missing.push(`${method} ${path} 200`);
      for (const status of ['4XX', '5XX']) {
        const failure = jsonSchema(responses[status]);
        const props = (failure?.properties ?? {}) as Schema;
        if (!failure || !('errorCode' in props) || !(failure.required as string[]).includes('errorCode')) missing.push(`${method} ${path} ${status}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('documents read-your-writes: Oddex-Position on every reply, Oddex-Min-Position on every read', () => {
    const undocumented: string[] = [];
    for (const { path, method } of operations()) {
      const op = doc.paths[path]![method.toLowerCase()];
      for (const [status, response] of Object.entries(op.responses ?? {}) as [string, { headers?: Schema }][]) {
        if (!response.headers?.['Oddex-Position']) undocumented.push(`${method} ${path} ${status}: Oddex-Position`);
      }
      const params = (op.parameters ?? []) as { name: string; in: string }[];
      if (method === 'GET' && !params.some((p) => p.in === 'header' && p.name === 'Oddex-Min-Position')) undocumented.push(`${method} ${path}: Oddex-Min-Position`);
    }
    expect(undocumented).toEqual([]);
  });

  it('shows a signed example body for each signed write endpoint, verifiable with viem', async () => {
    const example = (path: string) => doc.paths[path]!.post.requestBody.content['application/json'].example;
    const wallet = privateKeyToAccount(EXAMPLE_PRIVATE_KEY as Hex);
    const c = ex.ctx.config;

    const order = example('/orders/new').orders[0];
    expect(order.maker).toBe(wallet.address);
    const hash = (await signedOrder(wallet, c, {
      marketHash: order.marketHash,
      totalBetSize: BigInt(order.totalBetSize),
      percentageOdds: BigInt(order.percentageOdds),
      isMakerBettingOutcomeOne: order.isMakerBettingOutcomeOne,
      expiry: order.expiry,
      salt: BigInt(order.salt),
    })).hash;
    expect(await recoverMessageAddress({ message: { raw: hash }, signature: order.signature })).toBe(wallet.address);

    const fill = example('/orders/fill/v2');
    const viemFill = await signedFill(wallet, c, {
      market: fill.market,
      isTakerBettingOutcomeOne: fill.isTakerBettingOutcomeOne,
      stakeWei: BigInt(fill.stakeWei),
      desiredOdds: BigInt(fill.desiredOdds),
      oddsSlippage: fill.oddsSlippage,
      fillSalt: BigInt(fill.fillSalt),
    });
    expect(fill).toEqual(viemFill); // deterministic signatures: the same bytes viem produces

    for (const [path, kind, extra] of [
      ['/orders/cancel/v2', 'v2', 'orderHashes'],
      ['/orders/cancel/event', 'event', 'exchangeEventId'],
      ['/orders/cancel/all', 'all', undefined],
    ] as const) {
      const body = example(path);
      const viemCancel = await signedCancel(wallet, c, kind, { ...(extra ? { [extra]: body[extra] } : {}), timestamp: body.timestamp, salt: body.salt });
      expect(body).toEqual(viemCancel); // deterministic signatures: the same bytes viem produces
    }
    const parlay = example('/parlays/request');
    const viemParlay = await signedParlayRequest(wallet, await parlaySigning(ex), { legs: parlay.legs, requestSize: BigInt(parlay.requestSize), timestamp: parlay.timestamp, salt: parlay.salt });
    expect(parlay).toEqual(viemParlay); // deterministic signatures: the same bytes viem produces
    expect(example('/heartbeat')).toEqual({ requestor: wallet.address, timeoutSeconds: 30 });
  });

  it('documents every field of every operation\'s real replies, success and failure', async () => {
    const validated = new Set<string>();
    const problems: string[] = [];
    const templates = Object.keys(doc.paths).map((p) => ({ p, re: new RegExp('^' + p.replace(/\{[^}]+\}/g, '[^/]+') + '$') }));
    const check = (method: string, url: string, res: TestResponse) => {
      const pathname = url.split('?')[0]!;
      const template = templates.filter((t) => t.re.test(pathname)).sort((a, b) => b.p.length - a.p.length)[0]?.p;
      if (!template) return problems.push(`${method} ${pathname}: not documented`);
      const responses = doc.paths[template]![method.toLowerCase()].responses;
      const schema = jsonSchema(res.status === 200 ? responses['200'] : responses[res.status >= 500 ? '5XX' : '4XX'])!;
      const validate = validator(schema);
      if (!validate(res.body)) problems.push(`${method} ${template} ${res.status}: ${ajv.errorsText(validate.errors)}`);
      if (res.status === 200) validated.add(`${method} ${template}`);
    };
    const get = async (url: string, headers?: Record<string, string>) => {
      const res = await ex.get(url, headers);
      check('GET', url, res);
      return res;
    };
    const post = async (url: string, body: unknown, headers?: Record<string, string>) => {
      const res = await ex.post(url, body, headers);
      check('POST', url, res);
      return res;
    };
    const admin = async (method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown) => {
      const res = await ex.admin(method, url, body);
      check(method, url, res);
      return res;
    };
    const c = ex.ctx.config;

    // Operator: catalogue, live score, funds, keys, accounts.
    const sport = (await admin('POST', '/admin/sports', { label: 'Schema Sport' })).body.data;
    const league = (await admin('POST', '/admin/leagues', { sportId: sport.sportId, label: 'Schema League' })).body.data;
    const one = (await admin('POST', '/admin/teams', { sportId: sport.sportId, name: 'Schema One' })).body.data;
    const two = (await admin('POST', '/admin/teams', { sportId: sport.sportId, name: 'Schema Two' })).body.data;
    const gameTime = Math.floor(Date.now() / 1000) + 3600;
    const fixture = (await admin('POST', '/admin/fixtures', { leagueId: league.leagueId, teamOneId: one.id, teamTwoId: two.id, gameTime })).body.data;
    const eventId: string = fixture.eventId;
    await admin('POST', `/admin/fixtures/${eventId}/status`, { status: 1 });
    const market: string = (await admin('POST', '/admin/markets', { exchangeEventId: eventId, type: 52 })).body.data[0].marketHash;
    const total = (await admin('POST', '/admin/markets', { exchangeEventId: eventId, type: 2, line: 2.5 })).body.data[0].marketHash;
    await admin('POST', `/admin/markets/${total}/main-line`);
    await admin('POST', `/admin/markets/${total}/status`, { status: 'SUSPENDED' });
    await admin('POST', `/admin/markets/${total}/status`, { status: 'ACTIVE' });
    await admin('POST', '/admin/live-scores', { exchangeEventId: eventId, currentPeriod: '1H', periodTime: '12:00', teamOneScore: 0, teamTwoScore: 0, periods: [{ label: '1H', isFinished: false, teamOneScore: '0', teamTwoScore: '0' }] });
    const maker = newWallet();
    const taker = newWallet();
    await fund(ex, maker, 200n * USDC);
    await admin('POST', '/admin/faucet', { address: taker.address, amount: (200n * USDC).toString() });
    const spare = newWallet();
    await fund(ex, spare, 10n * USDC);
    await admin('POST', '/admin/chain/transfer', { from: spare.address, to: taker.address, amount: '1000000' });
    await post('/user/demo-funds', { address: spare.address });
    await post('/user/demo-funds', { address: '0x1234' }); // 400
    const key = (await admin('POST', '/admin/api-keys', { address: spare.address })).body.data;
    await admin('DELETE', `/admin/api-keys/${key.id}`);
    await admin('DELETE', `/admin/api-keys/${key.id}`); // 404 failure envelope
    // A parlay of this fixture's moneyline and another fixture's: the request, a refused one, the market with its legs.
    const other = (await admin('POST', '/admin/fixtures', { leagueId: league.leagueId, teamOneId: two.id, teamTwoId: one.id, gameTime })).body.data;
    const otherMarket: string = (await admin('POST', '/admin/markets', { exchangeEventId: other.eventId, type: 52 })).body.data[0].marketHash;
    const parlayLegs = [{ marketHash: market, bettingOutcomeOne: true }, { marketHash: otherMarket, bettingOutcomeOne: false }];
    const parlay = await post('/parlays/request', await signedParlayRequest(spare, await parlaySigning(ex), { legs: parlayLegs, requestSize: 5n * USDC }));
    await post('/parlays/request', await signedParlayRequest(spare, await parlaySigning(ex), { legs: parlayLegs.slice(1), requestSize: 5n * USDC })); // 400
    await get(`/markets/find?marketHashes=${parlay.body.data.marketHash}`);
    await admin('GET', `/admin/accounts/${maker.address}`);
    await admin('POST', `/admin/accounts/${maker.address}/lift-restriction`);

    // Trading: orders on both sides, a taker on both sides (refunds), cancels, heartbeat.
    const order = async (isMakerBettingOutcomeOne: boolean, percentageOdds: bigint, marketHash = market) =>
      (await post('/orders/new', { orders: [(await signedOrder(maker, c, { marketHash, totalBetSize: 30n * USDC, percentageOdds, isMakerBettingOutcomeOne })).body] })).body.data.orders[0] as string;
    const o1 = await order(true, 50n * E18);
    await order(false, 40n * E18);
    await post('/orders/new', { orders: [] }); // 400 failure envelope
    const f1 = await post('/orders/fill/v2', await signedFill(taker, c, { market, isTakerBettingOutcomeOne: false, stakeWei: 20n * USDC, desiredOdds: 50n * E18 }));
    await post('/orders/fill/v2', await signedFill(taker, c, { market, isTakerBettingOutcomeOne: true, stakeWei: 15n * USDC, desiredOdds: 60n * E18 }));
    await post('/orders/fill/v2', { market }); // 400
    await waitFor(() => ex.get(`/trades?bettor=${taker.address}`), (r) => r.body.data.trades.length === 2 && r.body.data.trades.every((t: { tradeStatus: string }) => t.tradeStatus === 'SUCCESS'));
    const apiKey = await createApiKey(ex, maker.address);
    await post('/heartbeat', { requestor: maker.address, timeoutSeconds: 60 }, { 'x-api-key': apiKey });
    await post('/heartbeat', { requestor: maker.address, timeoutSeconds: 0 }, { 'x-api-key': apiKey });
    await post('/heartbeat', { requestor: maker.address, timeoutSeconds: 60 }); // 401
    await get('/user/realtime-token/api-key', { 'x-api-key': apiKey });
    await get('/user/realtime-token/api-key'); // 401
    const signInAt = Math.floor(Date.now() / 1000);
    const signIn = `Oddex realtime sign-in\naddress: ${maker.address}\ntimestamp: ${signInAt}`;
    await post('/user/realtime-token/wallet', { address: maker.address, timestamp: signInAt, signature: await maker.signMessage({ message: signIn }) });
    await post('/user/realtime-token/wallet', { address: maker.address, timestamp: signInAt, signature: '0x00' }); // 403
    const walletSigned = async (text: string) => ({ address: maker.address, timestamp: signInAt, signature: await maker.signMessage({ message: `Oddex API key\n${text}address: ${maker.address}\ntimestamp: ${signInAt}` }) });
    const ownKey = (await post('/user/api-keys', await walletSigned(''))).body.data;
    await post('/user/api-keys/list', await walletSigned('action: list\n'));
    await post(`/user/api-keys/${ownKey.id}/revoke`, await walletSigned(`action: revoke ${ownKey.id}\n`));
    await post(`/user/api-keys/${ownKey.id}/revoke`, await walletSigned(`action: revoke ${ownKey.id}\n`)); // 404
    await post('/user/api-keys/list', { address: maker.address, timestamp: signInAt, signature: '0x00' }); // 403

    // Reads, with items in every list.
    await get('/health');
    await get('/health/live');
    await get('/health/ready');
    await get('/metadata');
    await get('/markets/active?pageSize=1');
    await get(`/markets/find?marketHashes=${market},${total}`);
    await get('/markets/find'); // 400
    await get('/markets/popular');
    await get('/search?query=schema');
    await get('/sports');
    await get('/leagues/active');
    await get('/teams');
    await get(`/fixture/active?leagueId=${league.leagueId}`);
    await get(`/live-scores?exchangeEventIds=${eventId}`);
    await get(`/balances/${taker.address}`);
    await get(`/orders?maker=${maker.address}`);
    await get(`/orders/odds/best?marketHashes=${market},${total}&baseToken=${c.baseTokenAddress}`);
    const candles = await get(`/markets/${market}/history?interval=1m`);
    expect(candles.body.data.candles.length).toBeGreaterThan(0);
    await get(`/markets/${market}/history?interval=2m`); // 400
    const trades = await get(`/trades?bettor=${taker.address}`);
    await get('/trades'); // 400
    await get(`/trades/orders?orderHashes=${o1}`);
    const refunds = await get(`/trades/portfolio/refunds?bettor=${taker.address}&sortAsc=true&page=0&perPage=10`);
    expect(refunds.body.data.results[0].events.length).toBeGreaterThan(0);
    expect(f1.body.data.fillHash).toBe(trades.body.data.trades.at(-1).fillHash);
    await get(`/cashout/quote?bettor=${taker.address}&marketHash=${market}`); // 409: refunded
    // A position on the totals market with a maker on the other side to hedge against: a cash-out quote.
    await order(true, 30n * E18, total);
    await post('/orders/fill/v2', await signedFill(taker, c, { market: total, isTakerBettingOutcomeOne: false, stakeWei: 7n * USDC, desiredOdds: 70n * E18 }));
    await waitFor(() => ex.get(`/trades?bettor=${taker.address}`), (r) => r.body.data.trades.length === 3 && r.body.data.trades.every((t: { tradeStatus: string }) => t.tradeStatus === 'SUCCESS'));
    await order(false, 40n * E18, total);
    expect((await get(`/cashout/quote?bettor=${taker.address}&marketHash=${total}`)).status).toBe(200);

    // Cancels, then settlement: settled trades and consolidated entries carry their result fields.
    const o3 = await order(true, 30n * E18, total);
    await post('/orders/cancel/v2', await signedCancel(maker, c, 'v2', { orderHashes: [o3] }));
    const o4 = await order(true, 30n * E18, total);
    const quote = (await signedOrder(maker, c, { marketHash: total, totalBetSize: 30n * USDC, percentageOdds: 31n * E18, isMakerBettingOutcomeOne: true })).body;
    expect((await post('/orders/replace', { cancel: await signedCancel(maker, c, 'v2', { orderHashes: [o4] }), orders: [quote] })).status).toBe(200);
    await post('/orders/replace', { cancel: await signedCancel(maker, c, 'v2', { orderHashes: [o4] }), orders: [quote] }); // 409 posted before
    await order(true, 30n * E18, total);
    await post('/orders/cancel/event', await signedCancel(maker, c, 'event', { exchangeEventId: eventId }));
    await post('/orders/cancel/all', await signedCancel(maker, c, 'all'));
    await post('/orders/cancel/all', await signedCancel(maker, c, 'all', { salt: randomHex32(), timestamp: 1 })); // 400 stale
    await admin('POST', `/admin/markets/${market}/report`, { outcome: 2 });
    await admin('POST', `/admin/fixtures/${eventId}/result`, { teamOneScore: 2, teamTwoScore: 1 });
    await waitFor(() => ex.get(`/trades?bettor=${taker.address}`), (r) => r.body.data.trades.every((t: { settled: boolean }) => t.settled));
    await get(`/trades?bettor=${taker.address}`);
    await get(`/trades/consolidated?bettor=${taker.address}&settled=true&page=0&perPage=10&sortAsc=true`);
    expect((await get(`/positions?bettor=${maker.address}`)).body.data.positions.some((p: { settled: boolean }) => p.settled)).toBe(true);
    await get(`/positions?bettor=${taker.address}&page=0&perPage=1`);
    await get('/positions'); // 400
    expect((await get(`/account/statement?bettor=${maker.address}&sortAsc=true`)).body.data.entries.length).toBeGreaterThan(2);
    await get('/account/statement?bettor=0x1'); // 400
    await get(`/markets/find?marketHashes=${market}`);
    expect((await admin('GET', '/admin/fees')).body.data.days.length).toBeGreaterThan(0);
    await admin('GET', '/admin/fees?from=2026-03-02&to=2026-03-01'); // 400
    await admin('POST', '/admin/journal/snapshot');
    await admin('POST', '/admin/journal/archive'); // 409 until a second snapshot covers rows

    expect(problems).toEqual([]);
    expect(operations().map((o) => `${o.method} ${o.path}`).filter((o) => !validated.has(o))).toEqual([]);
  }, 60_000);
});

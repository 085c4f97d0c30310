// /asyncapi.json describes every realtime channel: its document validates against the official AsyncAPI 3.0.0 schema,
// every reference resolves, every channel name the server accepts or publishes on matches a documented address, and
// every publication made while trading (catalogue, orders, fills, settlement, refunds, live scores, a parlay request)
// is valid data of its channel's documented payload, with no field the payload does not list.
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv } from 'ajv';
import { renderForEveryChannel, startTestExchange, type TestExchange } from './helpers/server.js';
import { betTestConfig, createFixtureMarket, createSoccerLeague, fillAndConfirm, fundedWallet, postOrder, waitFor } from './helpers/bets.js';
import { E18, USDC } from './helpers/wallets.js';
import { GLOBAL_CHANNELS, HISTORY_SIZE, parseChannel } from '../src/realtime/channels.js';
import { EncodedArray } from '../src/realtime/broker.js';
import { parlaySigning, signedParlayRequest } from './helpers/parlays.js';

type Json = Record<string, unknown>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Doc = any;

/** The official JSON schema of AsyncAPI 3.0.0 documents (the `@asyncapi/specs` package), without `$id`s for ajv. */
const ASYNCAPI_3_SCHEMA = createRequire(import.meta.url)('@asyncapi/specs/schemas/3.0.0-without-$id.json') as Json;

/** The schema with every object closed: a published field the payload does not list fails validation. */
function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Json = Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, k === 'examples' ? v : closed(v)]));
  if (out.properties && out.additionalProperties === undefined) out.additionalProperties = false;
  return out;
}

/** What a JSON pointer reference (#/a/b) names in the document, or undefined. */
const resolve = (doc: Doc, ref: string): unknown =>
  ref
    .replace(/^#\//, '')
    .split('/')
    .reduce<unknown>((node, key) => (node as Json | undefined)?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);

/** Every $ref in a node. */
function refs(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((n) => refs(n, out));
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') out.push(v);
      else refs(v, out);
    }
  }
  return out;
}

/** A documented channel address as a pattern of the names it stands for. */
const addressPattern = (address: string) => new RegExp('^' + address.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^:]+') + '$');

describe('/asyncapi.json', () => {
  let ex: TestExchange;
  let doc: Doc;
  const ajv = new Ajv({ strict: false, allErrors: true });

  beforeAll(async () => {
    ex = await startTestExchange(betTestConfig());
    const res = await ex.get('/asyncapi.json');
    expect(res.status).toBe(200);
    doc = res.body;
  });
  afterAll(async () => ex?.destroy());

  it('validates against the AsyncAPI 3.0.0 schema, points at this server and resolves every reference', () => {
    const validate = ajv.compile(ASYNCAPI_3_SCHEMA);
    expect(validate(doc) ? [] : validate.errors).toEqual([]);
    // The schema is not a formality: a channel without its address type, or an unknown top-level field, is refused.
    const [first] = Object.keys(doc.channels);
    expect(validate({ ...doc, channels: { ...doc.channels, [first!]: { ...doc.channels[first!], address: 42 } } })).toBe(false);
    expect(validate({ ...doc, rooms: {} })).toBe(false);
    expect(doc.servers.exchange).toMatchObject({ host: `127.0.0.1:${ex.port}`, protocol: 'ws', pathname: '/connection/websocket' });
    const unresolved = refs(doc).filter((r) => resolve(doc, r) === undefined);
    expect(unresolved).toEqual([]);
    // Every payload is a JSON schema ajv compiles, and every operation receives a message of its own channel.
    for (const [name, schema] of Object.entries(doc.components.schemas)) expect([name, typeof ajv.compile(schema as Json)]).toEqual([name, 'function']);
    for (const [id, op] of Object.entries<Doc>(doc.operations)) {
      expect([id, op.action]).toEqual([id, 'receive']);
      for (const m of op.messages) expect(m.$ref.startsWith(`${op.channel.$ref}/messages/`)).toBe(true);
    }
  });

  it('documents every channel the server accepts, with its authorization', () => {
    const channels = Object.values<Doc>(doc.channels);
    const documented = (name: string) => channels.filter((c) => addressPattern(c.address).test(name));
    for (const name of Object.keys(GLOBAL_CHANNELS)) expect([name, documented(name).length]).toEqual([name, 1]);
    // Each address, its parameters set to their examples, is a channel of the namespace it is documented under.
    const namespaces = new Set<string>();
    for (const c of channels) {
      const name = c.address.replace(/\{([^}]+)\}/g, (_: string, p: string) => c.parameters[p].examples[0]);
      const parsed = parseChannel(name);
      expect([c.address, parsed?.canonical]).toEqual([c.address, name]);
      namespaces.add(parsed!.namespace);
      // Owner-only channels say so and ask for the owner's token.
      const op = Object.values<Doc>(doc.operations).find((o) => o.channel.$ref === `#/channels/${Object.keys(doc.channels).find((k) => doc.channels[k] === c)}`);
      const scheme = op.security[0].$ref;
      expect([c.address, scheme]).toEqual([c.address, parsed!.owner ? '#/components/securitySchemes/ownerToken' : '#/components/securitySchemes/realtimeToken']);
    }
    expect([...namespaces].sort()).toEqual(Object.keys(HISTORY_SIZE).sort());
  });

  it('describes every publication made while trading, field by field', async () => {
    const published: { channel: string; data: unknown }[] = [];
    const broker = ex.ctx.realtime.broker;
    const publish = broker.publish.bind(broker);
    broker.publish = (channel, data) => {
      // What the wire carries: the JSON text (fields set to undefined are not sent).
      published.push({ channel, data: JSON.parse(data instanceof EncodedArray ? data.json : JSON.stringify(data)) });
      return publish(channel, data);
    };
    renderForEveryChannel(ex);

    const cat = await createSoccerLeague(ex);
    const { exchangeEventId, markets } = await createFixtureMarket(ex, cat, { type: 52 });
    const market = markets[0]!.marketHash;
    await createFixtureMarket(ex, cat, { type: 2, line: 2.5 });
    const maker = await fundedWallet(ex);
    const taker = await fundedWallet(ex);
    await postOrder(ex, maker, { marketHash: market, totalBetSize: 100n * USDC, percentageOdds: 40n * E18, isMakerBettingOutcomeOne: true });
    await fillAndConfirm(ex, taker, { market, isTakerBettingOutcomeOne: false, stakeWei: 30n * USDC, desiredOdds: 60n * E18 });
    // The maker's opposite bet frees escrow: a capital-efficiency refund.
    await postOrder(ex, taker, { marketHash: market, totalBetSize: 20n * USDC, percentageOdds: 50n * E18, isMakerBettingOutcomeOne: true });
    await fillAndConfirm(ex, maker, { market, isTakerBettingOutcomeOne: false, stakeWei: 20n * USDC, desiredOdds: 50n * E18 });
    // A parlay request over this market and another fixture's is broadcast to makers.
    const other = (await createFixtureMarket(ex, cat, { type: 52 })).markets[0]!.marketHash;
    const legs = [
      { marketHash: market, bettingOutcomeOne: true },
      { marketHash: other, bettingOutcomeOne: false },
    ];
    const parlay = await ex.post('/parlays/request', await signedParlayRequest(taker, await parlaySigning(ex), { legs, requestSize: 10n * USDC }));
    expect(parlay.status).toBe(200);
    const score = { exchangeEventId, currentPeriod: '1st Half', periodTime: '12:00', teamOneScore: 1, teamTwoScore: 0, periods: [] };
    expect((await ex.admin('POST', '/admin/live-scores', score)).status).toBe(200);
    expect((await ex.admin('POST', `/admin/markets/${market}/report`, { outcome: 1 })).status).toBe(200);
    await waitFor(
      async () => published,
      (p) => p.some((x) => x.channel.startsWith('recent_trades_consolidated')) && p.some((x) => x.channel === 'markets:global'),
    );

    const channels = Object.values<Doc>(doc.channels);
    const problems: string[] = [];
    for (const { channel, data } of published) {
      const c = channels.find((d) => addressPattern(d.address).test(channel));
      if (!c) {
        problems.push(`${channel}: not documented`);
        continue;
      }
      const message = resolve(doc, Object.values<Doc>(c.messages)[0].$ref) as Doc;
      const validate = ajv.compile(closed(resolve(doc, message.payload.$ref)) as Json);
      if (!validate(data)) problems.push(`${channel}: ${ajv.errorsText(validate.errors)} ${JSON.stringify(validate.errors?.map((e) => e.params))}`);
    }
    expect(problems).toEqual([]);
    const namespaces = new Set(published.map((p) => p.channel.split(':')[0]));
    expect([...namespaces].sort()).toEqual(
      ['active_orders', 'best_odds', 'ce_refunds', 'fixtures', 'markets', 'order_book', 'parlay_markets', 'recent_trades', 'recent_trades_consolidated'].sort(),
    );
  });
});

// GET /asyncapi.json: the realtime channels as an AsyncAPI 3.0 document. Each channel's payload is the TypeBox
// schema its publications are rendered to (the REST items' schemas, src/api/schemas), its name pattern the one
// src/realtime/channels.ts parses, its history the size the broker keeps.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type TSchema } from '@sinclair/typebox';
import { HISTORY_SIZE, type Namespace } from '../realtime/channels.js';
import { REALTIME_PATH } from '../realtime/server.js';
import { Market, Fixture, LiveScore } from './schemas/catalogue.js';
import { Trade, ConsolidatedTrade } from './schemas/trades.js';
import { BestOddsMove, ChannelOrder, ChannelRefundGroup, ParlayRequestBroadcast } from './schemas/realtime.js';

export interface ChannelParameter {
  description: string;
  /** A valid value, for the document's examples and for tests that build the channel's name. */
  example: string;
}

export interface ChannelDoc {
  /** AsyncAPI channel id. */
  id: string;
  namespace: Namespace;
  /** The channel name, with `{parameter}` for each parameter. */
  address: string;
  parameters?: Record<string, ChannelParameter>;
  /** Only the address in the parameter may subscribe (the token's `sub`), else error 103. */
  ownerOnly?: boolean;
  description: string;
  /** What one publication's `data` is. */
  payload: TSchema;
  /** The name of the payload's schema in components.schemas. */
  payloadName: string;
}

const MARKET_HASH: ChannelParameter = { description: 'market hash, 0x and 64 hex digits (published lower case)', example: `0x${'ab'.repeat(32)}` };
const OWNER = (who: string): ChannelParameter => ({
  description: `the ${who}'s address, 0x and 40 hex digits (published checksummed)`,
  example: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
});

/** Every channel the exchange publishes on (test/asyncapi.test.ts holds the server to this list). */
export const CHANNEL_DOCS: readonly ChannelDoc[] = [
  { id: 'markets', namespace: 'markets', address: 'markets:global', description: 'Markets created, suspended, reopened or settled.', payload: Type.Array(Market), payloadName: 'Markets' },
  { id: 'mainLine', namespace: 'main_line', address: 'main_line:global', description: 'When the main line of a spread or total group moves: the new main line first (mainLine true), then the market that lost it (mainLine false).', payload: Type.Array(Market), payloadName: 'Markets' },
  { id: 'fixtures', namespace: 'fixtures', address: 'fixtures:global', description: 'Fixtures created or changed (status, start).', payload: Type.Array(Fixture), payloadName: 'Fixtures' },
  {
    id: 'liveScores',
    namespace: 'fixtures',
    address: 'fixtures:live_scores',
    description: 'Live score updates of every fixture: the client filters by exchangeEventId.',
    payload: Type.Array(LiveScore),
    payloadName: 'LiveScores',
  },
  {
    id: 'bestOdds',
    namespace: 'best_odds',
    address: 'best_odds:global',
    description:
      'Book sides whose best maker odds moved to a price. A side that lost its last order is not published. A parlay market\'s moves during its quote window are held; its best odds as they stand at the close are published then.',
    payload: Type.Array(BestOddsMove),
    payloadName: 'BestOddsMoves',
  },
  {
    id: 'orderBookMarket',
    namespace: 'order_book',
    address: 'order_book:market_{marketHash}',
    parameters: { marketHash: MARKET_HASH },
    description: 'Orders of one market as they change (added, filled, cancelled, expired).',
    payload: Type.Array(ChannelOrder),
    payloadName: 'ChannelOrders',
  },
  {
    id: 'orderBookEvent',
    namespace: 'order_book',
    address: 'order_book:event_{eventId}',
    parameters: { eventId: { description: 'exchange event id: 1 to 100 of A-Z a-z 0-9 . _ : -', example: 'evt-1' } },
    description: 'Orders of every market of one event as they change.',
    payload: Type.Array(ChannelOrder),
    payloadName: 'ChannelOrders',
  },
  {
    id: 'activeOrders',
    namespace: 'active_orders',
    address: 'active_orders:{maker}',
    parameters: { maker: OWNER('maker') },
    ownerOnly: true,
    description: "The maker's own orders as they change (fills, cancels, expiry).",
    payload: Type.Array(ChannelOrder),
    payloadName: 'ChannelOrders',
  },
  {
    id: 'recentTrades',
    namespace: 'recent_trades',
    address: 'recent_trades:global',
    description: 'Trades as recorded and as they change (chain outcome, settlement): one trade per publication, as GET /trades lists it.',
    payload: Trade,
    payloadName: 'Trade',
  },
  {
    id: 'recentTradesConsolidated',
    namespace: 'recent_trades_consolidated',
    address: 'recent_trades_consolidated:global',
    description: 'Consolidated trades as they change: one per publication, as GET /trades/consolidated lists it.',
    payload: ConsolidatedTrade,
    payloadName: 'ConsolidatedTrade',
  },
  {
    id: 'refunds',
    namespace: 'ce_refunds',
    address: 'ce_refunds:{bettor}',
    parameters: { bettor: OWNER('bettor') },
    ownerOnly: true,
    description: "Capital-efficiency refunds paid to the bettor: per market and token, this commit's events and the running total.",
    payload: Type.Array(ChannelRefundGroup),
    payloadName: 'RefundGroups',
  },
  { id: 'parlayMarkets', namespace: 'parlay_markets', address: 'parlay_markets:global', description: 'Parlay requests: each creates a parlay market that makers have the quote window to post orders on.', payload: ParlayRequestBroadcast, payloadName: 'ParlayRequest' },
];

const PROTOCOL_DESCRIPTION =
  'Realtime updates over WebSocket with the Centrifuge client protocol (JSON). The first command is ' +
  '`{"id":1,"connect":{"token":"<token>"}}`, with a token from GET /user/realtime-token/api-key or POST ' +
  '/user/realtime-token/wallet; then `{"id":2,"subscribe":{"channel":"<name>"}}` (add `"recover":true` and the last ' +
  '`offset` and `epoch` to recover missed publications from history). Each publication arrives as ' +
  '`{"push":{"channel":"<name>","pub":{"data":<payload>,"offset":<n>}}}`: the messages below describe `data`. ' +
  'A client holds at most 512 channels. Error 102: unknown channel; 103: permission denied (another address\'s ' +
  'owner-only channel); 109: token expired (refresh with `{"refresh":{"token":...}}`).';

/** The JSON of a TypeBox schema (drops its symbol keys). */
const plain = (schema: TSchema): unknown => JSON.parse(JSON.stringify(schema));

/** The document for a server reached at `host` (host[:port]) over `protocol`. */
export function asyncApiDocument(host: string, protocol: 'ws' | 'wss'): Record<string, unknown> {
  const channels: Record<string, unknown> = {};
  const operations: Record<string, unknown> = {};
  const schemas: Record<string, unknown> = {};
  const messages: Record<string, unknown> = {};
  for (const c of CHANNEL_DOCS) {
    schemas[c.payloadName] ??= plain(c.payload);
    messages[c.payloadName] ??= { name: c.payloadName, contentType: 'application/json', payload: { $ref: `#/components/schemas/${c.payloadName}` } };
    const history = HISTORY_SIZE[c.namespace];
    channels[c.id] = {
      address: c.address,
      title: c.address,
      description:
        `${c.description} ${history > 0 ? `The last ${history} publications are kept for recovery.` : 'No history: not recoverable.'}` +
        (c.ownerOnly ? ' Only a connection whose token is for that address may subscribe (else error 103).' : ''),
      messages: { [c.payloadName]: { $ref: `#/components/messages/${c.payloadName}` } },
      ...(c.parameters
        ? { parameters: Object.fromEntries(Object.entries(c.parameters).map(([name, p]) => [name, { description: p.description, examples: [p.example] }])) }
        : {}),
    };
    operations[`receive_${c.id}`] = {
      action: 'receive',
      channel: { $ref: `#/channels/${c.id}` },
      summary: `Publications of ${c.address}`,
      messages: [{ $ref: `#/channels/${c.id}/messages/${c.payloadName}` }],
      security: [{ $ref: c.ownerOnly ? '#/components/securitySchemes/ownerToken' : '#/components/securitySchemes/realtimeToken' }],
    };
  }
  return {
    asyncapi: '3.0.0',
    info: { title: 'Oddex realtime channels', version: '1.0.0', description: PROTOCOL_DESCRIPTION },
    defaultContentType: 'application/json',
    servers: {
      exchange: {
        host,
        protocol,
        pathname: REALTIME_PATH,
        description: 'The exchange itself: the same host and port as the REST API.',
        security: [{ $ref: '#/components/securitySchemes/realtimeToken' }],
      },
    },
    channels,
    operations,
    components: {
      schemas,
      messages,
      securitySchemes: {
        realtimeToken: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'A realtime token (HS256 JWT) sent as connect.token, not as an HTTP header: any valid token reads the public channels.',
        },
        ownerToken: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: "A realtime token whose `sub` is the channel's address parameter: an API key's address, or a wallet that signed in.",
        },
      },
    },
  };
}

export const asyncApiRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/asyncapi.json', { schema: { hide: true } }, async (request) =>
    asyncApiDocument(request.headers.host ?? request.hostname, request.protocol === 'https' ? 'wss' : 'ws'),
  );
};

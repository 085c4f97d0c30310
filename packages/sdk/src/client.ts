// OddexClient: typed methods for every public endpoint, signing of orders, fills and cancels, safe retries,
// a heartbeat keeper and realtime order books. It speaks only the public HTTP and WebSocket API, so it works
// against any Oddex; it uses the global fetch and WebSocket unless others are passed (e.g. `ws` on Node).
import { checksumAddress } from '../../../src/protocol/address.js';
import { orderHash } from '../../../src/protocol/hashing.js';
import { apiKeyText, type ApiKeyAction } from '../../../src/protocol/wallet-texts.js';
import { cancelAllTypes, cancelEventTypes, cancelV2Types, fillMessage, fillTypes, parlayRequestTypes } from '../../../src/protocol/eip712.js';
import type { Static } from '@sinclair/typebox';
import type { Ready } from '../../../src/protocol/wire/admin.js';
import type { PostOrdersResult as WirePostOrdersResult, RealtimeToken, ReplaceResult } from '../../../src/protocol/wire/trading.js';
import { OddexApiError } from './errors.js';
import { HttpTransport, type FetchLike, type RetryPolicy } from './http.js';
import {
  parseBalance,
  parseCashOutQuote,
  parseBestOdds,
  parseCancel,
  parseCandle,
  parseConsolidatedTrade,
  parseFill,
  parseOrder,
  parsePosition,
  parseRefundGroup,
  parseStatementEntry,
  parseOrderTrade,
  parseTrade,
} from './parse.js';
import { toAccount, type AccountLike, type Hex, type SignerInput } from './signer.js';
import { HeartbeatKeeper, type HeartbeatKeeperOptions } from './heartbeat.js';
import { OddexRealtime, type WebSocketConstructor } from './realtime.js';
import { LocalOrderBook } from './order-book.js';
import type {
  CashOutQuote,
  ApiKeyInfo,
  Balance,
  BestOdds,
  Candle,
  CandleInterval,
  CancelResult,
  ConsolidatedTrade,
  ExchangeParams,
  FillResult,
  Fixture,
  Heartbeat,
  League,
  LiveScore,
  Market,
  MarketPage,
  Narrowed,
  ParlayLeg,
  ParlayRequest,
  NewApiKey,
  Metadata,
  Order,
  OrderTrade,
  Position,
  PostOrdersResult,
  RefundGroup,
  StatementEntry,
  SearchResult,
  Sport,
  Team,
  TradePage,
} from './types.js';

export interface OddexClientOptions {
  /** The exchange's base URL, e.g. http://127.0.0.1:8080. */
  url: string;
  /** A private key (`0x` + 64 hex) or a viem-compatible account; needed for orders, fills and cancels. */
  signer?: SignerInput;
  /** An API key of the signer's address (`createApiKey`, or the operator's): heartbeat and realtime tokens. */
  apiKey?: string;
  fetch?: FetchLike;
  /** WebSocket implementation for realtime (default: the global one; pass `ws` on Node 20). */
  WebSocket?: WebSocketConstructor;
  retry?: Partial<RetryPolicy>;
  timeoutMs?: number;
}

/** A maker order before signing. Amounts in wei, odds on the 10^20 scale (the maker's side). */
export interface OrderInput {
  marketHash: string;
  isMakerBettingOutcomeOne: boolean;
  totalBetSize: bigint;
  percentageOdds: bigint;
  /** Seconds from now until the order expires (default one day); or give `expiry` as UNIX seconds. */
  expiresInSeconds?: number;
  expiry?: number;
  /** Defaults to `expiry`. */
  apiExpiry?: number;
  salt?: bigint;
  /** Not signed: LAPSE (the exchange's default) is cancelled when the fixture goes live, PERSIST stays into play. */
  persistence?: 'LAPSE' | 'PERSIST';
}

/** The body of one signed order for POST /orders/new. */
export interface SignedOrder {
  marketHash: string;
  maker: string;
  totalBetSize: string;
  percentageOdds: string;
  baseToken: string;
  apiExpiry: number;
  expiry: number;
  executor: string;
  isMakerBettingOutcomeOne: boolean;
  salt: string;
  signature: string;
  persistence?: 'LAPSE' | 'PERSIST';
}

export interface FillInput {
  marketHash: string;
  isTakerBettingOutcomeOne: boolean;
  stakeWei: bigint;
  /** The worst taker odds acceptable before slippage (10^20 scale). */
  desiredOdds: bigint;
  /** Percent tolerance below desiredOdds for the average taker odds, 0 to 100 (default 0). */
  oddsSlippage?: number;
  /** Not signed: fill the whole stake or nothing (else the exchange answers FILL_OR_KILL_NOT_FILLED and nothing changes). */
  fillOrKill?: boolean;
  /** Not signed: refuse a fill matching less taker stake than this, 1 to stakeWei (else FILL_BELOW_MIN_STAKE). */
  minStakeWei?: bigint;
  /** Signed: the market hash makes the fill a cash out of the signer's position there (see cashOut); absent, the zero hash. */
  cashOutTarget?: string;
}

export interface MarketQuery {
  onlyMainLine?: boolean;
  eventId?: string;
  leagueId?: number;
  sportIds?: readonly number[];
  liveOnly?: boolean;
  betGroup?: string;
  type?: readonly number[];
  paginationKey?: string;
  pageSize?: number;
  gameTime?: number;
}

export interface OrdersQuery {
  marketHashes?: readonly string[];
  maker?: string;
  baseToken?: string;
  exchangeEventId?: string;
  orderHashes?: readonly string[];
  page?: number;
  perPage?: number;
  sortBy?: 'fill_amount' | 'total_bet_size' | 'percentage_odds' | 'api_expiry' | 'created_at' | 'updated_at';
  sortAsc?: boolean;
}

export interface TradesQuery {
  startDate?: number;
  endDate?: number;
  bettor?: string;
  settled?: boolean;
  marketHashes?: readonly string[];
  baseToken?: string;
  maker?: boolean;
  affiliate?: string;
  pageSize?: number;
  paginationKey?: string;
  tradeStatus?: 'PENDING' | 'SUCCESS' | 'FAILED';
  exchangeEventId?: string;
}

export interface ConsolidatedQuery {
  bettor?: string;
  settled: boolean;
  page?: number;
  perPage?: number;
  sortBy?: string;
  sortAsc?: boolean;
  maker?: boolean;
  exchangeEventId?: string;
  tradeStatus?: 'SUCCESS' | 'FAILED';
  marketHash?: string;
  hideQuarterLineParents?: boolean;
  hideQuarterLineLegs?: boolean;
}

/** GET /positions and GET /account/statement: whose (default: the signer's), and which page. */
export interface AccountQuery {
  bettor?: string;
  page?: number;
  perPage?: number;
}

export interface RefundsQuery {
  bettor?: string;
  marketHash?: string;
  baseToken?: string;
  fillHash?: string;
  maker?: boolean;
  sortAsc?: boolean;
  page?: number;
  perPage?: number;
}

const DAY_SECONDS = 86_400;
const nowSeconds = () => Math.floor(Date.now() / 1000);

/** A random 32-byte value: as a bigint (order and fill salts) or as hex (cancel salts). */
export function randomBytes32(): Uint8Array {
  const bytes = new Uint8Array(32);
  globalThis.crypto.getRandomValues(bytes);
  return bytes;
}
const toHex = (bytes: Uint8Array): Hex => ('0x' + Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')) as Hex;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
export const randomSalt = (): bigint => BigInt(toHex(randomBytes32()));

export class OddexClient {
  readonly http: HttpTransport;
  readonly url: string;
  private readonly account: AccountLike | undefined;
  private readonly apiKey: string | undefined;
  private readonly WebSocketImpl: WebSocketConstructor | undefined;
  private paramsPromise: Promise<ExchangeParams> | undefined;
  private realtimeClient: OddexRealtime | undefined;

  constructor(opts: OddexClientOptions) {
    this.url = opts.url.replace(/\/+$/, '');
    this.http = new HttpTransport({
      baseUrl: this.url,
      ...(opts.fetch ? { fetch: opts.fetch } : {}),
      ...(opts.retry ? { retry: opts.retry } : {}),
      ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}),
    });
    this.account = opts.signer === undefined ? undefined : toAccount(opts.signer);
    this.apiKey = opts.apiKey;
    this.WebSocketImpl = opts.WebSocket;
  }

  /** The signer's checksummed address. */
  get address(): string {
    return this.requireAccount().address;
  }

  get hasSigner(): boolean {
    return this.account !== undefined;
  }

  private requireAccount(): AccountLike {
    if (!this.account) throw new TypeError('this client has no signer: pass `signer` (a private key or an account)');
    return this.account;
  }

  private requireApiKey(): string {
    if (!this.apiKey) throw new TypeError('this needs an API key: pass `apiKey` (from createApiKey or the operator)');
    return this.apiKey;
  }

  // ---- health and metadata -------------------------------------------------------------------------

  /** Whether the exchange is up and ready for trading (GET /health/ready; 503 while starting or stopping). */
  async ready(): Promise<boolean> {
    try {
      return (await this.http.request<Static<typeof Ready>>('GET', '/health/ready')).ready;
    } catch (err) {
      if (err instanceof OddexApiError && err.status === 503) return false;
      throw err;
    }
  }

  metadata(): Promise<Metadata> {
    return this.http.request<Metadata>('GET', '/metadata');
  }

  /** Chain id, domains, executor, token and minimums: read from /metadata once and kept. */
  params(): Promise<ExchangeParams> {
    this.paramsPromise ??= this.metadata().then(paramsOf, (err: unknown) => {
      this.paramsPromise = undefined; // a failed first read is retried on the next call
      throw err;
    });
    return this.paramsPromise;
  }

  // ---- catalogue -----------------------------------------------------------------------------------

  activeMarkets(q: MarketQuery = {}): Promise<MarketPage> {
    return this.http.request<MarketPage>('GET', '/markets/active', { query: { ...q } });
  }

  /** Every active market matching the query, following `nextKey` page by page. */
  async allActiveMarkets(q: Omit<MarketQuery, 'paginationKey'> = {}): Promise<Market[]> {
    const out: Market[] = [];
    let key: string | undefined;
    do {
      const page = await this.activeMarkets({ pageSize: 100, ...q, ...(key ? { paginationKey: key } : {}) });
      out.push(...page.markets);
      key = page.nextKey || undefined;
    } while (key);
    return out;
  }

  findMarkets(marketHashes: readonly string[]): Promise<Market[]> {
    return this.http.request<Market[]>('GET', '/markets/find', { query: { marketHashes } });
  }

  /** A market's candles of traded odds, oldest first: the newest `limit` (default 500) starting in [from, to]. */
  async priceHistory(marketHash: string, q: { interval: CandleInterval; from?: number; to?: number; limit?: number }): Promise<Candle[]> {
    const data = await this.http.request<{ candles: unknown[] }>('GET', `/markets/${encodeURIComponent(marketHash)}/history`, { query: { ...q } });
    return data.candles.map(parseCandle);
  }

  popularMarkets(): Promise<Market[]> {
    return this.http.request<Market[]>('GET', '/markets/popular');
  }

  search(query: string): Promise<SearchResult[]> {
    return this.http.request<SearchResult[]>('GET', '/search', { query: { query } });
  }

  sports(): Promise<Sport[]> {
    return this.http.request<Sport[]>('GET', '/sports');
  }

  activeLeagues(sportId?: number): Promise<League[]> {
    return this.http.request<League[]>('GET', '/leagues/active', { query: { sportId } });
  }

  teams(q: { sportId?: number; teamId?: number; page?: number; pageSize?: number } = {}): Promise<Team[]> {
    return this.http.request<Team[]>('GET', '/teams', { query: { ...q } });
  }

  activeFixtures(leagueId: number): Promise<Fixture[]> {
    return this.http.request<Fixture[]>('GET', '/fixture/active', { query: { leagueId } });
  }

  liveScores(exchangeEventIds?: readonly string[]): Promise<LiveScore[]> {
    return this.http.request<LiveScore[]>('GET', '/live-scores', { query: { exchangeEventIds } });
  }

  // ---- orders and odds -----------------------------------------------------------------------------

  /** Orders by market, maker or hash. With an `apiKey`, `maker` set to its address also lists that maker's quotes on parlays still in their quote window. */
  async orders(q: OrdersQuery): Promise<Order[]> {
    const wire = await this.http.request<unknown[]>('GET', '/orders', { query: { ...q }, ...(this.apiKey ? { headers: { 'x-api-key': this.apiKey } } : {}) });
    return wire.map(parseOrder);
  }

  /** Every order matching the query, page after page (1000 per request). */
  async allOrders(q: Omit<OrdersQuery, 'page' | 'perPage'>): Promise<Order[]> {
    const out: Order[] = [];
    for (let page = 0; ; page++) {
      const batch = await this.orders({ ...q, page, perPage: 1000 });
      out.push(...batch);
      if (batch.length < 1000) return out;
    }
  }

  async bestOdds(q: { marketHashes?: readonly string[]; leagueIds?: readonly number[]; baseToken?: string }): Promise<BestOdds[]> {
    const baseToken = q.baseToken ?? (await this.params()).baseToken;
    const data = await this.http.request<{ bestOdds: unknown[] }>('GET', '/orders/odds/best', { query: { ...q, baseToken } });
    return data.bestOdds.map(parseBestOdds);
  }

  /** Signs one order for POST /orders/new (the signer is the maker). */
  async signOrder(input: OrderInput): Promise<{ orderHash: string; order: SignedOrder }> {
    const account = this.requireAccount();
    const p = await this.params();
    const expiry = input.expiry ?? nowSeconds() + (input.expiresInSeconds ?? DAY_SECONDS);
    const salt = input.salt ?? randomSalt();
    const hash = orderHash({
      marketHash: input.marketHash,
      baseToken: p.baseToken,
      totalBetSize: input.totalBetSize,
      percentageOdds: input.percentageOdds,
      expiry: BigInt(expiry),
      salt,
      maker: account.address,
      executor: p.executor,
      isMakerBettingOutcomeOne: input.isMakerBettingOutcomeOne,
    });
    const signature = await account.signMessage({ message: { raw: hash as Hex } });
    return {
      orderHash: hash,
      order: {
        marketHash: input.marketHash.toLowerCase(),
        maker: account.address,
        totalBetSize: input.totalBetSize.toString(),
        percentageOdds: input.percentageOdds.toString(),
        baseToken: p.baseToken,
        apiExpiry: input.apiExpiry ?? expiry,
        expiry,
        executor: p.executor,
        isMakerBettingOutcomeOne: input.isMakerBettingOutcomeOne,
        salt: salt.toString(),
        signature,
        ...(input.persistence !== undefined ? { persistence: input.persistence } : {}),
      },
    };
  }

  /**
   * Signs and posts maker orders. A lost answer is retried with the same signed bodies; on a retry,
   * ORDERS_ALREADY_EXIST means the earlier attempt got through, so those orders are reported as OK.
   */
  async postOrders(inputs: readonly (OrderInput | SignedOrder)[]): Promise<PostOrdersResult> {
    const signed = await Promise.all(inputs.map((o) => ('signature' in o ? o : this.signOrder(o).then((s) => s.order))));
    return this.postSignedOrders(signed);
  }

  async postSignedOrders(orders: readonly SignedOrder[]): Promise<PostOrdersResult> {
    let attempts = 0;
    const data = await this.http.request<Static<typeof WirePostOrdersResult>>('POST', '/orders/new', {
      body: { orders },
      retryOnNetworkError: true,
      onAttempt: (n) => (attempts = n),
    });
    const posted = data.orders.map((hash) => {
      const status = data.statuses[hash] ?? 'UNKNOWN';
      return { orderHash: hash, status: attempts > 1 && status === 'ORDERS_ALREADY_EXIST' ? 'OK' : status };
    });
    return { orders: posted, inserted: posted.filter((o) => o.status === 'OK').length };
  }

  /** Fills as a taker with a fresh salt; `oddsSlippage` is the percent tolerance below `desiredOdds`. */
  async fill(input: FillInput): Promise<FillResult> {
    const account = this.requireAccount();
    const p = await this.params();
    const request = {
      market: input.marketHash.toLowerCase(),
      baseToken: p.baseToken,
      isTakerBettingOutcomeOne: input.isTakerBettingOutcomeOne,
      stakeWei: input.stakeWei,
      desiredOdds: input.desiredOdds,
      oddsSlippage: input.oddsSlippage ?? 0,
      fillSalt: randomSalt(),
      ...(input.cashOutTarget !== undefined ? { cashOutTarget: input.cashOutTarget.toLowerCase() } : {}),
    };
    const takerSig = await account.signTypedData({
      domain: { name: p.domainNames.fill, version: p.domainVersion, chainId: p.chainId, verifyingContract: p.fillHasher as Hex },
      types: fillTypes,
      primaryType: 'Details',
      message: fillMessage(request),
    });
    const data = await this.http.request<unknown>('POST', '/orders/fill/v2', {
      body: {
        ...request,
        stakeWei: request.stakeWei.toString(),
        desiredOdds: request.desiredOdds.toString(),
        fillSalt: request.fillSalt.toString(),
        taker: account.address,
        takerSig,
        ...(input.fillOrKill !== undefined ? { fillOrKill: input.fillOrKill } : {}),
        ...(input.minStakeWei !== undefined ? { minStakeWei: input.minStakeWei.toString() } : {}),
      },
    });
    return parseFill(data);
  }

  // ---- cancels -------------------------------------------------------------------------------------

  /** Cancels these orders of the signer (POST /orders/cancel/v2). */
  cancelOrders(orderHashes: readonly string[]): Promise<CancelResult> {
    return this.signedCancel('/orders/cancel/v2', 'cancelV2', cancelV2Types, { orderHashes: [...orderHashes] });
  }

  /** Cancels the signer's orders on every market of one event (POST /orders/cancel/event). */
  cancelEvent(exchangeEventId: string): Promise<CancelResult> {
    return this.signedCancel('/orders/cancel/event', 'cancelEvent', cancelEventTypes, { exchangeEventId });
  }

  /** Cancels all the signer's open orders (POST /orders/cancel/all). */
  cancelAll(): Promise<CancelResult> {
    return this.signedCancel('/orders/cancel/all', 'cancelAll', cancelAllTypes, {});
  }

  /**
   * Cancels some of the signer's orders and posts new ones in one step (POST /orders/replace): both happen, or
   * neither does (a refusal throws OddexApiError with its errorCode and changes nothing).
   */
  async replaceOrders(
    orderHashes: readonly string[],
    inputs: readonly (OrderInput | SignedOrder)[],
  ): Promise<{ cancel: CancelResult; orders: PostOrdersResult }> {
    const [cancel, orders] = await Promise.all([
      this.signCancel('cancelV2', cancelV2Types, { orderHashes: [...orderHashes] }),
      Promise.all(inputs.map((o) => ('signature' in o ? o : this.signOrder(o).then((s) => s.order)))),
    ]);
    const data = await this.http.request<Static<typeof ReplaceResult>>(
      'POST',
      '/orders/replace',
      { body: { cancel, orders } },
    );
    const posted = data.orders.orders.map((hash) => ({ orderHash: hash, status: data.orders.statuses[hash] ?? 'UNKNOWN' }));
    return { cancel: parseCancel(data.cancel), orders: { orders: posted, inserted: data.orders.inserted } };
  }

  private async signedCancel(
    path: string,
    domainName: keyof ExchangeParams['domainNames'],
    types: typeof cancelAllTypes | typeof cancelV2Types | typeof cancelEventTypes,
    fields: Record<string, unknown>,
  ): Promise<CancelResult> {
    return parseCancel(await this.http.request<unknown>('POST', path, { body: await this.signCancel(domainName, types, fields) }));
  }

  /** The body of a signed cancel: its fields, signed with a fresh salt and the current time. */
  private async signCancel(
    domainName: keyof ExchangeParams['domainNames'],
    types: typeof cancelAllTypes | typeof cancelV2Types | typeof cancelEventTypes,
    fields: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    const account = this.requireAccount();
    const p = await this.params();
    const salt = toHex(randomBytes32());
    const timestamp = nowSeconds();
    const signature = await account.signTypedData({
      domain: { name: p.domainNames[domainName], version: '1.0', chainId: p.chainId, salt },
      types,
      primaryType: 'Details',
      message: { ...fields, timestamp: BigInt(timestamp) },
    });
    return { ...fields, signature, salt, maker: account.address, timestamp };
  }

  // ---- parlays -------------------------------------------------------------------------------------

  /**
   * Requests quotes on a parlay as the signer (POST /parlays/request): answers the new parlay market, whose
   * `parlay.quoteWindowEndsAt` says when the offers show (see `parlayOffers`).
   */
  async requestParlay(input: { legs: readonly ParlayLeg[]; requestSize: bigint }): Promise<Market> {
    const account = this.requireAccount();
    const p = await this.params();
    const salt = toHex(randomBytes32());
    const timestamp = nowSeconds();
    const legs = input.legs.map((l) => ({ marketHash: l.marketHash, bettingOutcomeOne: l.bettingOutcomeOne }));
    const signature = await account.signTypedData({
      domain: { name: p.domainNames.parlayRequest, version: '1.0', chainId: p.chainId, salt },
      types: parlayRequestTypes,
      primaryType: 'Details',
      message: { legs, baseToken: p.baseToken, requestSize: input.requestSize, timestamp: BigInt(timestamp) },
    });
    return this.http.request<Market>('POST', '/parlays/request', {
      body: { bettor: account.address, baseToken: p.baseToken, requestSize: input.requestSize.toString(), legs, timestamp, salt, signature },
    });
  }

  /**
   * Waits out a parlay's quote window, then answers the offers makers posted on it in the order the exchange fills
   * them: lowest maker odds of outcome two first, oldest first within a price (the bettor backs outcome one at 1 -
   * those odds). A fill takes the first one, whichever the bettor's desiredOdds name.
   */
  async parlayOffers(parlay: Market, opts: { sleep?: (ms: number) => Promise<void> } = {}): Promise<Order[]> {
    const endsAt = parlay.parlay?.quoteWindowEndsAt;
    if (endsAt === undefined) throw new TypeError(`market ${parlay.marketHash} is not a parlay`);
    const wait = endsAt - Date.now();
    // A little past the end: the server's clock decides when the book shows.
    if (wait > -50) await (opts.sleep ?? sleep)(Math.max(0, wait) + 50);
    const orders = await this.allOrders({ marketHashes: [parlay.marketHash] });
    return orders
      .filter((o) => !o.isMakerBettingOutcomeOne)
      .sort((a, b) => (a.percentageOdds !== b.percentageOdds ? (a.percentageOdds < b.percentageOdds ? -1 : 1) : Date.parse(a.createdAt) - Date.parse(b.createdAt)));
  }

  /** Calls `onRequest` for every parlay request broadcast on parlay_markets:global (needs an API key); returns the unsubscribe. */
  onParlayRequests(onRequest: (request: ParlayRequest) => void): () => void {
    const rt = this.realtime();
    rt.subscribe('parlay_markets:global', {
      onPublication: (data) => {
        for (const r of Array.isArray(data) ? data : [data]) onRequest(r as ParlayRequest);
      },
    });
    return () => rt.unsubscribe('parlay_markets:global');
  }

  // ---- heartbeat -----------------------------------------------------------------------------------

  /** Registers or refreshes the signer's heartbeat; 0 deactivates it (orders are then not cancelled). */
  heartbeat(timeoutSeconds: number): Promise<Heartbeat> {
    return this.http.request<Heartbeat>('POST', '/heartbeat', {
      body: { requestor: this.address, timeoutSeconds },
      headers: { 'x-api-key': this.requireApiKey() },
      retryOnNetworkError: true, // refreshing twice is harmless
    });
  }

  /** Keeps the heartbeat alive in the background: if this process stops, the exchange cancels its orders. */
  keepHeartbeat(opts: HeartbeatKeeperOptions): HeartbeatKeeper {
    const keeper = new HeartbeatKeeper((t) => this.heartbeat(t), opts);
    keeper.start();
    return keeper;
  }

  // ---- API keys (signed by the wallet, no operator) --------------------------------------------------

  /** Issues an API key for the signer's address; the key is shown once. Pass it as `apiKey` to a client. */
  async createApiKey(): Promise<NewApiKey> {
    return this.http.request<NewApiKey>('POST', '/user/api-keys', { body: await this.signedApiKeyAction({ kind: 'create' }) });
  }

  /** The live API keys of the signer's address (ids and creation times), operator-issued ones included. */
  async listApiKeys(): Promise<ApiKeyInfo[]> {
    return this.http.request<ApiKeyInfo[]>('POST', '/user/api-keys/list', { body: await this.signedApiKeyAction({ kind: 'list' }) });
  }

  /** Revokes one API key of the signer's address; its realtime sessions end at once. */
  async revokeApiKey(id: string): Promise<{ id: string; revoked: boolean }> {
    const body = await this.signedApiKeyAction({ kind: 'revoke', id });
    return this.http.request('POST', `/user/api-keys/${encodeURIComponent(id)}/revoke`, { body });
  }

  /** The wallet's personal_sign over the action's text (its UTF-8 bytes, exactly what signing the text signs). */
  private async signedApiKeyAction(action: ApiKeyAction): Promise<{ address: string; timestamp: number; signature: string }> {
    const account = this.requireAccount();
    const timestamp = nowSeconds();
    const raw = toHex(new TextEncoder().encode(apiKeyText(action, account.address, timestamp)));
    return { address: account.address, timestamp, signature: await account.signMessage({ message: { raw } }) };
  }

  // ---- trades, refunds, balances -------------------------------------------------------------------

  async trades(q: TradesQuery): Promise<TradePage> {
    const data = await this.http.request<Narrowed<TradePage, { trades: unknown[] }>>('GET', '/trades', { query: { ...q } });
    return { ...data, trades: data.trades.map(parseTrade) };
  }

  async tradesByOrders(orderHashes: readonly string[]): Promise<OrderTrade[]> {
    const data = await this.http.request<{ trades: unknown[] }>('GET', '/trades/orders', { query: { orderHashes } });
    return data.trades.map(parseOrderTrade);
  }

  async consolidatedTrades(q: ConsolidatedQuery): Promise<{ trades: ConsolidatedTrade[]; count: number }> {
    const query = { page: 0, perPage: 100, sortAsc: false, ...q };
    const data = await this.http.request<{ trades: unknown[]; count: number }>('GET', '/trades/consolidated', { query });
    return { trades: data.trades.map(parseConsolidatedTrade), count: data.count };
  }

  async refunds(q: RefundsQuery = {}): Promise<{ results: RefundGroup[]; count: number }> {
    const query = { bettor: q.bettor ?? this.address, sortAsc: false, page: 0, perPage: 100, ...q };
    const data = await this.http.request<{ results: unknown[]; count: number }>('GET', '/trades/portfolio/refunds', { query });
    return { results: data.results.map(parseRefundGroup), count: data.count };
  }

  /**
   * What the bettor's (default: the signer's) confirmed position in a market is worth now, and the hedge fill that
   * takes it: fill with its isTakerBettingOutcomeOne, stakeWei and desiredOdds. With `partial: true`, a book covering
   * only part of the hedge answers the quote of that part (`partial: true`, and `uncoveredWei` the return the hedge
   * still lacks) rather than INSUFFICIENT_SPACE.
   */
  async cashoutQuote(marketHash: string, bettor?: string, opts: { partial?: boolean } = {}): Promise<CashOutQuote> {
    const query = { bettor: checksumAddress(bettor ?? this.address), marketHash, ...(opts.partial ? { partial: true } : {}) };
    return parseCashOutQuote(await this.http.request<unknown>('GET', '/cashout/quote', { query }));
  }

  /**
   * Cashes out the signer's confirmed position in a market: quotes the hedge, then signs and posts it as a fill whose
   * cashOutTarget is the market hash. `stakeWei` (at most the quoted stake) cashes out that part of the position; the
   * fill takes the quoted odds, `oddsSlippage` percent below them at worst. When the hedge confirms, the position's
   * guaranteed amount (what it is owed in every result, a void included) less the cash-out fee is paid at once.
   * `partial: true` quotes with that option: a book covering part of the hedge cashes out that part.
   */
  async cashOut(marketHash: string, opts: { stakeWei?: bigint; oddsSlippage?: number; partial?: boolean } = {}): Promise<FillResult & { quote: CashOutQuote }> {
    const quote = await this.cashoutQuote(marketHash, this.requireAccount().address, { partial: opts.partial === true });
    const stakeWei = opts.stakeWei ?? quote.stakeWei;
    if (stakeWei <= 0n || stakeWei > quote.stakeWei) throw new RangeError(`stakeWei must be from 1 to the quoted hedge stake ${quote.stakeWei}`);
    const fill = await this.fill({
      marketHash,
      isTakerBettingOutcomeOne: quote.isTakerBettingOutcomeOne,
      stakeWei,
      desiredOdds: quote.desiredOdds,
      oddsSlippage: opts.oddsSlippage ?? 0,
      cashOutTarget: marketHash,
    });
    return { ...fill, quote };
  }

  /** A bettor's positions per market (default: the signer's), the last traded first: stakes, payouts, escrow, P&L. */
  async positions(q: AccountQuery = {}): Promise<{ positions: Position[]; count: number }> {
    const query = { bettor: q.bettor ?? this.address, page: q.page ?? 0, perPage: q.perPage ?? 100 };
    const data = await this.http.request<{ positions: unknown[]; count: number }>('GET', '/positions', { query });
    return { positions: data.positions.map(parsePosition), count: data.count };
  }

  /** Every movement of a wallet's funds with the balance after it (default: the signer's; newest first unless sortAsc). */
  async statement(q: AccountQuery & { sortAsc?: boolean } = {}): Promise<{ entries: StatementEntry[]; count: number }> {
    const query = { bettor: q.bettor ?? this.address, sortAsc: q.sortAsc ?? false, page: q.page ?? 0, perPage: q.perPage ?? 100 };
    const data = await this.http.request<{ entries: unknown[]; count: number }>('GET', '/account/statement', { query });
    return { entries: data.entries.map(parseStatementEntry), count: data.count };
  }

  /** Free balance, escrow and open-order exposure (default: the signer's). */
  async balance(address?: string): Promise<Balance> {
    const who = checksumAddress(address ?? this.address);
    return parseBalance(await this.http.request<unknown>('GET', `/balances/${who}`));
  }

  /**
   * Demo mode on the local ledger (`demoFunds` in /metadata): the exchange grants test funds to the address
   * (default: the signer's) and answers its new balance.
   */
  async requestDemoFunds(address?: string): Promise<Balance> {
    const who = checksumAddress(address ?? this.address);
    // Sent once: a refusal's Retry-After runs to minutes, far past any wait a retry would make.
    return parseBalance(await this.http.request<unknown>('POST', '/user/demo-funds', { body: { address: who }, attempts: 1 }));
  }

  // ---- realtime ------------------------------------------------------------------------------------

  /** A realtime connection token for the API key's address. */
  async realtimeToken(): Promise<string> {
    const data = await this.http.request<Static<typeof RealtimeToken>>('GET', '/user/realtime-token/api-key', {
      headers: { 'x-api-key': this.requireApiKey() },
      raw: true,
    });
    return data.token;
  }

  /** The client's realtime connection (one per client, connected on first use). */
  realtime(): OddexRealtime {
    this.realtimeClient ??= new OddexRealtime({
      url: this.url.replace(/^http/, 'ws') + '/connection/websocket',
      getToken: () => this.realtimeToken(),
      ...(this.WebSocketImpl ? { WebSocket: this.WebSocketImpl } : {}),
    });
    return this.realtimeClient;
  }

  /** A local order book of one market, kept from a REST snapshot plus publications, rebuilt when continuity is lost. */
  async watchOrderBook(marketHash: string): Promise<LocalOrderBook> {
    const book = new LocalOrderBook(marketHash, this.realtime(), (hash) => this.allOrders({ marketHashes: [hash] }));
    await book.start();
    return book;
  }

  /** Closes the realtime connection, if any. */
  close(): void {
    this.realtimeClient?.close();
    this.realtimeClient = undefined;
  }
}

function paramsOf(m: Metadata): ExchangeParams {
  const tokens = m.addresses[String(m.chainId)] ?? {};
  const [symbol, baseToken] = Object.entries(tokens).find(([s]) => s === 'USDC') ?? Object.entries(tokens)[0] ?? [];
  if (!baseToken || !symbol) throw new OddexApiError('BAD_METADATA', 200, `metadata lists no base token for chain ${m.chainId}`);
  return {
    chainId: m.chainId,
    baseToken,
    baseTokenSymbol: symbol,
    executor: m.executorAddress,
    fillHasher: m.EIP712FillHasher,
    domainVersion: m.domainVersion,
    domainNames: m.domainNames,
    oddsLadderStepSize: m.oddsLadderStepSize,
    makerMinimum: BigInt(m.makerOrderMinimums[baseToken] ?? '0'),
    takerMinimum: BigInt(m.takerMinimums[baseToken] ?? '0'),
  };
}

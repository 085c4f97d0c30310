// The page's access to the exchange: the typed client (`@oddex/sdk`) for every public read and for
// signing orders, fills and cancels with the page's wallet. Only the wallet sign-in for a realtime token is
// done here, because the client gets its tokens from an API key, which a bettor in a browser does not have.
import { OddexClient, type Candle, type CandleInterval, type LiveScore, type Order, type Position, type RefundGroup, type StatementEntry, type Trade } from '@oddex/sdk';
import type { Wallet } from '../wallet/wallet';

const reader = new OddexClient({ url: location.origin });
const signers = new WeakMap<Wallet, OddexClient>();

/**
 * The client that signs with `wallet` (a viem-shaped account: signMessage raw bytes, signTypedData). It makes one
 * attempt per request: a bet refused for the rate limit (429) or a busy exchange (503) is shown to the bettor at
 * once, never sent again behind the page's back seconds later, while the ticket says the betting delay is running,
 * to be matched at whatever the odds are by then.
 */
export function clientFor(wallet: Wallet): OddexClient {
  let client = signers.get(wallet);
  if (!client) signers.set(wallet, (client = new OddexClient({ url: location.origin, signer: wallet, retry: { attempts: 1 } })));
  return client;
}

export interface FillInput {
  marketHash: string;
  isTakerBettingOutcomeOne: boolean;
  stakeWei: bigint;
  /** Worst acceptable taker odds (10^20 scale). */
  desiredOdds: bigint;
  /** Percent, 0..100. */
  oddsSlippage: number;
  /** Signed: the market hash makes the fill a cash out of the wallet's position there. */
  cashOutTarget?: string;
}

export interface OrderInput {
  marketHash: string;
  isMakerBettingOutcomeOne: boolean;
  totalBetSize: bigint;
  percentageOdds: bigint;
  /** Seconds the order stays valid. */
  lifetimeSeconds: number;
}

export const exchange = {
  metadata: () => reader.metadata(),
  params: () => reader.params(),
  sports: () => reader.sports(),
  leagues: (sportId?: number) => reader.activeLeagues(sportId),
  fixtures: (leagueId: number) => reader.activeFixtures(leagueId),
  teams: (sportId: number) => reader.teams({ sportId, pageSize: 500 }),
  search: (query: string) => reader.search(query),
  marketsOfEvent: (eventId: string) => reader.allActiveMarkets({ eventId }),
  findMarkets: (hashes: string[]) => reader.findMarkets(hashes),
  ordersOfMarket: (marketHash: string): Promise<Order[]> => reader.allOrders({ marketHashes: [marketHash] }),
  ordersOfMaker: (maker: string): Promise<Order[]> => reader.allOrders({ maker }),
  tradesOfMarket: async (marketHash: string): Promise<Trade[]> => (await reader.trades({ marketHashes: [marketHash], pageSize: 30 })).trades,
  priceHistory: (marketHash: string, interval: CandleInterval): Promise<Candle[]> => reader.priceHistory(marketHash, { interval }),
  tradesOfBettor: async (bettor: string): Promise<Trade[]> => (await reader.trades({ bettor, pageSize: 100 })).trades,
  balance: (address: string) => reader.balance(address),
  /** Partial: a book covering only part of the hedge quotes that part (`partial`, `uncoveredWei`), not INSUFFICIENT_SPACE. */
  cashoutQuote: (marketHash: string, bettor: string) => reader.cashoutQuote(marketHash, bettor, { partial: true }),
  /** Demo mode on the local ledger: what one grant gives, or null where the exchange gives nothing. */
  demoFundsOffer: async () => (await reader.metadata()).demoFunds ?? null,
  requestDemoFunds: (address: string) => reader.requestDemoFunds(address),
  refunds: (bettor: string): Promise<{ results: RefundGroup[]; count: number }> => reader.refunds({ bettor, sortAsc: false, page: 0, perPage: 100 }),
  /** The bettor's positions as the exchange computes them (GET /positions), the last traded first. */
  positions: async (bettor: string): Promise<Position[]> => (await reader.positions({ bettor, perPage: 100 })).positions,
  /** The latest movements of the bettor's funds, newest first (GET /account/statement). */
  statement: async (bettor: string): Promise<StatementEntry[]> => (await reader.statement({ bettor, perPage: 50 })).entries,

  async bestOdds(marketHashes: string[]) {
    const out = [];
    for (let i = 0; i < marketHashes.length; i += 20) out.push(...(await reader.bestOdds({ marketHashes: marketHashes.slice(i, i + 20) })));
    return out;
  },

  /** Live scores of these fixtures (those that have one); GET /live-scores takes up to 50 ids a request. */
  async liveScores(eventIds: readonly string[]): Promise<LiveScore[]> {
    const out = [];
    for (let i = 0; i < eventIds.length; i += 50) out.push(...(await reader.liveScores(eventIds.slice(i, i + 50))));
    return out;
  },

  /** A realtime token for the wallet: it signs the sign-in text of POST /user/realtime-token/wallet. */
  async realtimeToken(wallet: Wallet): Promise<string> {
    const timestamp = Math.floor(Date.now() / 1000);
    const text = `Oddex realtime sign-in\naddress: ${wallet.address}\ntimestamp: ${timestamp}`;
    const signature = await wallet.signMessage({ message: text });
    const d = await reader.http.request<{ token: string }>('POST', '/user/realtime-token/wallet', { body: { address: wallet.address, timestamp, signature } });
    return d.token;
  },

  fill: (wallet: Wallet, f: FillInput) => clientFor(wallet).fill(f),

  /** Signs and posts one maker order; returns its hash and the exchange's status for it. */
  async postOrder(wallet: Wallet, o: OrderInput): Promise<{ orderHash: string; status: string }> {
    const client = clientFor(wallet);
    const { order, orderHash } = await client.signOrder({ ...o, expiresInSeconds: o.lifetimeSeconds });
    const result = await client.postSignedOrders([order]);
    return { orderHash, status: result.orders[0]?.status ?? 'UNKNOWN' };
  },

  cancelOrders: (wallet: Wallet, orderHashes: string[]) => clientFor(wallet).cancelOrders(orderHashes),
  cancelAll: (wallet: Wallet) => clientFor(wallet).cancelAll(),
};

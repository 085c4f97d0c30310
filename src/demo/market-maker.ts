// A reference market maker on the public Oddex API (@oddex/sdk). It quotes both outcomes of its markets around a
// fair probability, with a spread, on the odds ladder; re-quotes when its orders fill, get cancelled or expire
// (told by its active_orders channel, checked again on a timer); keeps a heartbeat so the exchange cancels its
// orders if it dies; and never posts more than its free balance covers. It uses nothing but the SDK: the demo
// liquidity (liquidity.ts) runs it in process, examples/market-maker/main.ts as a stand-alone bot.
import {
  OddexApiError,
  oddsFromProbability,
  roundToLadder,
  type ExchangeParams,
  type Market,
  type OddexClient,
  type Order,
  type OrderInput,
} from '@oddex/sdk';

export type Log = (message: string, fields?: Record<string, unknown>) => void;

export interface MarketMakerOptions {
  /** A client with the maker's signer and an API key of the same address (heartbeat and realtime). */
  client: OddexClient;
  /** The markets to quote; called again every `marketRefreshMs` (new markets get quotes, closed ones are dropped). */
  markets: () => Promise<Market[]>;
  /** The maker's probability (0..1) that outcome one wins. */
  fairProbability: (market: Market) => number;
  /** Total width between the two quotes, as a probability (0.04: 48% / 48% around an even market). */
  spread: number;
  /** What the maker risks per quote, in wei. */
  orderSize: bigint;
  /** An order is replaced once less than this share of it is left (default 0.5). */
  refillBelow?: number;
  heartbeatSeconds?: number;
  requoteIntervalMs?: number;
  marketRefreshMs?: number;
  /** A market whose quote was refused is left alone this long (default 60 s). */
  refusedBackoffMs?: number;
  log?: Log;
}

/** Maker odds of the two quotes: each side's fair probability less half the spread, rounded down onto the ladder. */
export function quoteOdds(fairOne: number, spread: number, ladderStep: number): { one: bigint; two: bigint } {
  const clamp = (p: number) => Math.min(0.99, Math.max(0.01, p));
  return {
    one: roundToLadder(oddsFromProbability(clamp(fairOne - spread / 2)), ladderStep, 'down'),
    two: roundToLadder(oddsFromProbability(clamp(1 - fairOne - spread / 2)), ladderStep, 'down'),
  };
}

const ORDERS_PER_REQUEST = 40; // 20 markets, two quotes each: within the exchange's per-request limits

export class MarketMaker {
  private readonly o: Required<Omit<MarketMakerOptions, 'log'>> & { log: Log };
  private params: ExchangeParams | undefined;
  private markets: Market[] = [];
  private marketsAt = 0;
  private readonly refusedUntil = new Map<string, number>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private debounce: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<void> | undefined;
  private starting: Promise<void> | undefined;
  private again = false;
  private stopped = true;
  private keeper: ReturnType<OddexClient['keepHeartbeat']> | undefined;
  readonly stats = { quotesPosted: 0, refused: 0, fillsSeen: 0, reconciles: 0 };

  constructor(opts: MarketMakerOptions) {
    this.o = {
      refillBelow: 0.5,
      heartbeatSeconds: 30,
      requoteIntervalMs: 5000,
      marketRefreshMs: 60_000,
      refusedBackoffMs: 60_000,
      log: () => {},
      ...opts,
    };
  }

  get address(): string {
    return this.o.client.address;
  }

  /** Starts the heartbeat, the order channel and the first round of quotes (resolved once it is posted). */
  start(): Promise<void> {
    this.stopped = false;
    this.starting = this.run();
    return this.starting;
  }

  private async run(): Promise<void> {
    this.params = await this.o.client.params();
    if (this.stopped) return;
    this.keeper = this.o.client.keepHeartbeat({
      timeoutSeconds: this.o.heartbeatSeconds,
      onError: (err) => this.o.log('heartbeat refresh failed', { error: String(err) }),
    });
    await this.keeper.beat();
    if (this.stopped) return;
    this.o.client.realtime().subscribe(`active_orders:${this.address}`, {
      onPublication: (data) => this.onOrderChanges(data as Record<string, unknown>[]),
      onError: (err) => this.o.log('order channel error', { error: String(err) }),
    });
    await this.reconcile();
    if (this.stopped) return;
    this.timer = setInterval(() => this.requoteSoon(0), this.o.requoteIntervalMs);
    this.o.log('market maker started', { address: this.address, markets: this.markets.length });
  }

  /**
   * Stops quoting (a round in progress ends after its current request). With `cancelOrders`, takes its orders
   * off the book; otherwise they stay until the heartbeat runs out, so a quick restart finds them still quoted.
   */
  async stop(opts: { cancelOrders?: boolean } = {}): Promise<void> {
    this.stopped = true;
    await this.starting?.catch(() => {});
    clearInterval(this.timer);
    clearTimeout(this.debounce);
    await this.running?.catch(() => {});
    this.o.client.realtime().unsubscribe(`active_orders:${this.address}`);
    if (opts.cancelOrders) {
      const r = await this.o.client.cancelAll();
      this.o.log('cancelled all orders', { cancelled: r.cancelledCount });
      await this.keeper?.stop({ deactivate: true });
    } else {
      await this.keeper?.stop();
    }
  }

  private onOrderChanges(changes: Record<string, unknown>[]): void {
    const done = changes.filter((c) => c.status !== 'ACTIVE' || c.fillAmount !== '0');
    const fills = changes.filter((c) => c.fillAmount !== '0' || c.pendingFillAmount !== '0').length;
    this.stats.fillsSeen += fills;
    if (done.length > 0) {
      if (fills > 0) this.o.log('orders filled', { orders: fills });
      this.requoteSoon(200);
    }
  }

  private requoteSoon(delayMs: number): void {
    if (this.stopped) return;
    clearTimeout(this.debounce);
    this.debounce = setTimeout(() => void this.reconcile().catch((err: unknown) => this.o.log('re-quote failed', { error: String(err) })), delayMs);
  }

  /** One round: compare the open orders with the wanted quotes and post what is missing. Never two at once. */
  reconcile(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          await this.reconcileOnce();
        } while (this.again && !this.stopped);
      } finally {
        this.running = undefined;
      }
    })();
    return this.running;
  }

  private async reconcileOnce(): Promise<void> {
    if (this.stopped) return;
    this.stats.reconciles++;
    const client = this.o.client;
    const params = this.params!;
    const now = Date.now();
    if (now - this.marketsAt >= this.o.marketRefreshMs) {
      this.markets = await this.o.markets();
      this.marketsAt = now;
    }
    const open = await client.allOrders({ maker: this.address });
    const bySide = new Map<string, Order[]>();
    for (const order of open) {
      const key = `${order.marketHash}:${order.isMakerBettingOutcomeOne}`;
      bySide.set(key, [...(bySide.get(key) ?? []), order]);
    }

    // Orders mostly filled are replaced: cancel the remnants, then quote afresh.
    const refill = (this.o.orderSize * BigInt(Math.round(this.o.refillBelow * 1000))) / 1000n;
    const remaining = (order: Order) => order.totalBetSize - order.fillAmount - order.pendingFillAmount;
    const remnants = open.filter((order) => order.orderStatus === 'ACTIVE' && remaining(order) < refill && order.pendingFillAmount === 0n);
    if (remnants.length > 0) {
      await client.cancelOrders(remnants.map((r) => r.orderHash));
      this.o.log('cancelled nearly filled orders', { orders: remnants.length });
    }
    const live = (key: string) => (bySide.get(key) ?? []).some((order) => !remnants.includes(order));

    const wanted: OrderInput[] = [];
    for (const market of this.markets) {
      if ((this.refusedUntil.get(market.marketHash) ?? 0) > now) continue;
      const odds = quoteOdds(this.o.fairProbability(market), this.o.spread, params.oddsLadderStepSize);
      for (const one of [true, false]) {
        if (live(`${market.marketHash}:${one}`)) continue;
        wanted.push({ marketHash: market.marketHash, isMakerBettingOutcomeOne: one, totalBetSize: this.o.orderSize, percentageOdds: one ? odds.one : odds.two });
      }
    }
    if (wanted.length === 0) return;

    // The exchange removes orders beyond the balance; post only what the free balance covers.
    const balance = await client.balance();
    const free = balance.balance - balance.openExposure;
    const affordable = Number(free / this.o.orderSize);
    const posting = wanted.slice(0, Math.max(0, affordable));
    if (posting.length < wanted.length) {
      this.o.log('balance covers only part of the quotes', { wanted: wanted.length, posting: posting.length, free: free.toString() });
    }
    for (let i = 0; i < posting.length && !this.stopped; i += ORDERS_PER_REQUEST) {
      await this.post(posting.slice(i, i + ORDERS_PER_REQUEST));
    }
  }

  private async post(batch: OrderInput[]): Promise<void> {
    try {
      const result = await this.o.client.postOrders(batch);
      const refused = result.orders.map((r, i) => ({ ...r, marketHash: batch[i]!.marketHash })).filter((r) => r.status !== 'OK');
      this.stats.quotesPosted += result.inserted;
      this.stats.refused += refused.length;
      for (const r of refused) this.refusedUntil.set(r.marketHash, Date.now() + this.o.refusedBackoffMs);
      this.o.log('quoted', { posted: result.inserted, refused: refused.length, ...(refused[0] ? { firstRefusal: refused[0].status } : {}) });
    } catch (err) {
      // The whole request was refused (e.g. one market closed meanwhile): halve it to find the culprit,
      // keeping each market's two quotes together, then back that market off.
      if (!(err instanceof OddexApiError)) throw err;
      // The exchange could not take any request now (503: its storage, the chain's backlog; 429), or this maker is
      // stopping: no quote of the batch is to blame. Searching for a culprit would send a request per pair (each
      // retried by the client), keep a stop waiting for them and back every market off; the next round posts them.
      if (err.status >= 500 || err.status === 429 || this.stopped) {
        this.o.log('quotes not posted', { errorCode: err.errorCode, orders: batch.length });
        return;
      }
      if (batch.length > 2) {
        const mid = Math.ceil(batch.length / 4) * 2;
        await this.post(batch.slice(0, mid));
        await this.post(batch.slice(mid));
        return;
      }
      for (const o of batch) this.refusedUntil.set(o.marketHash, Date.now() + this.o.refusedBackoffMs);
      this.stats.refused += batch.length;
      this.o.log('quotes refused', { errorCode: err.errorCode, orders: batch.length });
    }
  }
}

// A workload of fills as production spreads them, for measuring what the trading store writes per fill (the bench
// bench/fill-commit.ts and the page-count test): many makers and takers, each fill on an order of its own posted just
// before, so index keys (hashes, addresses) land all over their B-trees instead of on one hot page.
import type { Engine } from '../../src/engine/engine.js';
import type { Command, MarketRef } from '../../src/engine/types.js';

import { restingOrder } from './engine-params.js';
import type { JournalEntry } from '../../src/store/ports.js';

const E18 = 10n ** 18n;
const USDC = 10n ** 6n;
const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');
/** `i` scattered over 64 hex digits the way a hash would be (a multiplicative hash of each 8-digit word). */
const hashOf = (tag: number, i: number) =>
  '0x' + Array.from({ length: 8 }, (_, w) => hex((Math.imul(i * 8 + w + tag * 1_000_003, 2654435761) >>> 0) ^ (w * 40503), 8)).join('');

export class FillWorkload {
  private readonly markets: MarketRef[];
  private readonly makers: string[];
  private readonly takers: string[];
  private at = 1_700_000_000_000;

  constructor(
    private readonly engine: Engine,
    private readonly token: string,
    sizes: { markets: number; makers: number; takers: number } = { markets: 20, makers: 500, takers: 500 },
  ) {
    this.markets = Array.from({ length: sizes.markets }, (_, i) => ({ marketHash: '0x' + hex(0x4000 + i, 64), exchangeEventId: `ev${i}`, tradeable: true }));
    this.makers = Array.from({ length: sizes.makers }, (_, i) => '0x' + hex(0xa000 + i * 7919, 40));
    this.takers = Array.from({ length: sizes.takers }, (_, i) => '0x' + hex(0xb000 + i * 7907, 40));
  }

  /** Funds every maker and taker. */
  funding(): JournalEntry[] {
    return [...this.makers, ...this.takers].map((address) => this.entry({ kind: 'faucet', at: this.at, address, amount: 1_000_000n * USDC }));
  }

  /** Fills `from` .. `from + n - 1`: one order each of 10 USDC at 50%, from makers in turn. */
  orders(from: number, n: number): JournalEntry[] {
    return this.each(from, n, (i) => {
      const market = this.market(i);
      return {
        kind: 'postOrders',
        at: ++this.at,
        markets: [market],
        orders: [
          restingOrder({
            orderHash: hashOf(1, i),
            marketHash: market.marketHash,
            maker: this.makers[i % this.makers.length]!,
            token: this.token,
            size: 10n * USDC,
            salt: String(i),
          }),
        ],
      };
    });
  }

  /** The fills themselves: each takes the whole of its order. */
  fills(from: number, n: number): JournalEntry[] {
    return this.each(from, n, (i) => ({
      kind: 'fill',
      at: ++this.at,
      fillHash: hashOf(2, i),
      market: this.market(i),
      taker: this.takers[(i * 13) % this.takers.length]!,
      baseToken: this.token,
      isTakerBettingOutcomeOne: true,
      stakeWei: 10n * USDC,
      desiredOdds: 50n * E18,
      oddsSlippage: 0,
      fillSalt: String(i),
    }));
  }

  /** Their confirmations by the chain. */
  confirmations(from: number, n: number): JournalEntry[] {
    return this.each(from, n, (i) => ({ kind: 'confirmFill', at: ++this.at, fillHash: hashOf(2, i) }));
  }

  private market(i: number): MarketRef {
    return this.markets[i % this.markets.length]!;
  }

  private each(from: number, n: number, command: (i: number) => Command): JournalEntry[] {
    return Array.from({ length: n }, (_, k) => this.entry(command(from + k)));
  }

  private entry(cmd: Command): JournalEntry {
    return { cmd, changes: this.engine.apply(cmd).changes };
  }
}

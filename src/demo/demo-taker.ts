// The demo's bettor: now and then backs one outcome of a random market at the best odds, sometimes the other
// side of a market it already holds (which earns capital-efficiency refunds), so trades, settlement and the
// realtime channels have something to show. Public API only.
import { OddexApiError, takerOddsOf, type OddexClient } from '@oddex/sdk';

export interface DemoTakerOptions {
  client: OddexClient;
  marketHashes: () => Promise<string[]>;
  minIntervalMs?: number;
  maxIntervalMs?: number;
  /** Stake range in wei. */
  minStake: bigint;
  maxStake: bigint;
  random?: () => number;
  log?: (message: string, fields?: Record<string, unknown>) => void;
}

const HEDGE_SHARE = 0.3;

export class DemoTaker {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private stopped = true;
  private betting: Promise<void> | undefined;
  /** Markets bet on, with the outcome backed (true: outcome one). */
  private readonly held = new Map<string, boolean>();
  readonly stats = { bets: 0, refused: 0 };

  constructor(private readonly o: DemoTakerOptions) {}

  start(): void {
    this.stopped = false;
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.betting;
  }

  private get random(): () => number {
    return this.o.random ?? Math.random;
  }

  private schedule(): void {
    if (this.stopped) return;
    const min = this.o.minIntervalMs ?? 2000;
    const max = this.o.maxIntervalMs ?? 6000;
    this.timer = setTimeout(() => {
      this.betting = this.betOnce()
        .catch((err: unknown) => this.o.log?.('demo bet failed', { error: String(err) }))
        .finally(() => {
          this.betting = undefined;
          this.schedule();
        });
    }, min + this.random() * (max - min));
  }

  private async betOnce(): Promise<void> {
    const hedge = this.held.size > 0 && this.random() < HEDGE_SHARE;
    let marketHash: string | undefined;
    let backOne: boolean | undefined;
    if (hedge) {
      const held = [...this.held];
      const [hash, one] = held[Math.floor(this.random() * held.length)]!;
      [marketHash, backOne] = [hash, !one];
    } else {
      const hashes = await this.o.marketHashes();
      marketHash = hashes[Math.floor(this.random() * hashes.length)];
    }
    if (!marketHash) return;
    const [best] = await this.o.client.bestOdds({ marketHashes: [marketHash] });
    backOne ??= this.random() < 0.5;
    // A taker on outcome one is matched with makers on outcome two.
    const makerOdds = backOne ? best?.outcomeTwo?.percentageOdds : best?.outcomeOne?.percentageOdds;
    if (makerOdds === undefined) return;
    const span = this.o.maxStake - this.o.minStake;
    const stake = this.o.minStake + (span * BigInt(Math.floor(this.random() * 1000))) / 1000n;
    try {
      const fill = await this.o.client.fill({ marketHash, isTakerBettingOutcomeOne: backOne, stakeWei: stake, desiredOdds: takerOddsOf(makerOdds), oddsSlippage: 5 });
      this.stats.bets++;
      this.held.set(marketHash, backOne);
      this.o.log?.('demo bet', { marketHash, outcome: backOne ? 1 : 2, stake: stake.toString(), filled: fill.totalFilled.toString(), hedge });
    } catch (err) {
      if (!(err instanceof OddexApiError)) throw err;
      this.stats.refused++;
      this.o.log?.('demo bet refused', { marketHash, errorCode: err.errorCode });
    }
  }
}

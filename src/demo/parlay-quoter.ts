// Quoting parlays (the request-for-quote flow): every request broadcast on parlay_markets:global is a fresh market
// whose outcome one is "every leg wins as the bettor picked". The maker prices it as the product of its own fair
// probabilities of the legs, adds its margin, and within the quote window posts one ordinary order backing outcome
// two, sized to take the bettor's whole requestSize. Legs it has no price for are not quoted.
import {
  ODDS_SCALE,
  OddexApiError,
  oddsFromProbability,
  roundToLadder,
  type ExchangeParams,
  type OddexClient,
  type OrderInput,
  type ParlayLeg,
  type ParlayRequest,
} from '@oddex/sdk';
import type { Log } from './market-maker.js';

export interface ParlayQuoterOptions {
  /** A client with the maker's signer and an API key (the parlay channel needs a realtime token). */
  client: OddexClient;
  /** The maker's probability (0..1) that a leg market's outcome one wins; undefined: no price, no quote. */
  legProbability: (marketHash: string) => number | undefined;
  /** Added to the bettor's implied probability (0.03: a fair 26.4% parlay is offered at 29.4%). */
  margin: number;
  /** The most the maker risks on one parlay, in wei. */
  maxStake: bigint;
  /** How long a quote stays on the book (s); past the bettor's fill window it is of no use. Default 120. */
  quoteSeconds?: number;
  log?: Log;
}

/** The bettor's fair chance that every leg wins as picked: the product over the legs. */
export function parlayFairProbability(legs: readonly ParlayLeg[], legProbability: (marketHash: string) => number | undefined): number | undefined {
  let p = 1;
  for (const leg of legs) {
    const one = legProbability(leg.marketHash);
    if (one === undefined) return undefined;
    p *= leg.bettingOutcomeOne ? one : 1 - one;
  }
  return p;
}

/**
 * The maker's order on a parlay: it backs outcome two at 1 - (fair + margin), rounded down onto the ladder (never
 * better for the bettor than priced), and stakes what the bettor's requestSize takes at those odds, up to maxStake.
 */
export function parlayQuote(
  request: ParlayRequest,
  fair: number,
  o: { margin: number; maxStake: bigint; ladderStep: number; makerMinimum: bigint },
): { percentageOdds: bigint; totalBetSize: bigint } | undefined {
  const bettorImplied = Math.min(0.99, Math.max(0.01, fair + o.margin));
  const percentageOdds = roundToLadder(oddsFromProbability(1 - bettorImplied), o.ladderStep, 'down');
  if (percentageOdds <= 0n) return undefined;
  // Rounded up: the book's taker space is rounded down from the maker stake, and must still take the whole request.
  const bettorOdds = ODDS_SCALE - percentageOdds;
  const toCover = (BigInt(request.requestSize) * percentageOdds + bettorOdds - 1n) / bettorOdds;
  const totalBetSize = toCover < o.maxStake ? toCover : o.maxStake;
  return totalBetSize >= o.makerMinimum ? { percentageOdds, totalBetSize } : undefined;
}

export class ParlayQuoter {
  private params: ExchangeParams | undefined;
  private unsubscribe: (() => void) | undefined;
  readonly stats = { requests: 0, quoted: 0, skipped: 0, refused: 0 };

  constructor(private readonly o: ParlayQuoterOptions) {}

  async start(): Promise<void> {
    this.params = await this.o.client.params();
    this.unsubscribe = this.o.client.onParlayRequests((r) => {
      void this.quote(r).catch((err: unknown) => this.o.log?.('parlay quote failed', { marketHash: r.marketHash, error: String(err) }));
    });
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  /** Posts this maker's offer on one request (answers whether it did). */
  async quote(request: ParlayRequest): Promise<boolean> {
    this.stats.requests++;
    const params = this.params ?? (this.params = await this.o.client.params());
    const fair = parlayFairProbability(request.legs, this.o.legProbability);
    const quote =
      fair === undefined || request.baseToken.toLowerCase() !== params.baseToken.toLowerCase()
        ? undefined
        : parlayQuote(request, fair, { margin: this.o.margin, maxStake: this.o.maxStake, ladderStep: params.oddsLadderStepSize, makerMinimum: params.makerMinimum });
    if (!quote) {
      this.stats.skipped++;
      return false;
    }
    const order: OrderInput = { marketHash: request.marketHash, isMakerBettingOutcomeOne: false, ...quote, expiresInSeconds: this.o.quoteSeconds ?? 120 };
    try {
      const result = await this.o.client.postOrders([order]);
      const ok = result.inserted === 1;
      if (ok) this.stats.quoted++;
      else this.stats.refused++;
      this.o.log?.('parlay quoted', { marketHash: request.marketHash, legs: request.legs.length, fair, odds: quote.percentageOdds.toString(), ok });
      return ok;
    } catch (err) {
      if (!(err instanceof OddexApiError)) throw err;
      this.stats.refused++;
      this.o.log?.('parlay quote refused', { marketHash: request.marketHash, errorCode: err.errorCode });
      return false;
    }
  }
}

// What makes a parlay: its hash, which legs it may combine, and how its legs' results decide it. Pure.
import { ExchangeError } from '../protocol/errors.js';
import { keccakText } from '../protocol/keccak.js';
import { PARLAY_MARKET_TYPE, type MarketRecord, type Outcome, type ParlayLeg } from './model.js';

export const PARLAY_MIN_LEGS = 2;
/** The public exchange's documented most. */
export const PARLAY_MAX_LEGS = 10;

/**
 * 0x + 64 lower-hex keccak256 of the request's bettor, salt and legs (in the order signed): every request is a
 * market of its own, and a replayed request names the same one.
 */
export function parlayHashOf(bettor: string, salt: string, legs: readonly ParlayLeg[]): string {
  const picks = legs.map((l) => `${l.marketHash.toLowerCase()}:${l.bettingOutcomeOne ? 1 : 2}`);
  return keccakText(['oddex-parlay-v1', bettor.toLowerCase(), salt.toLowerCase(), ...picks].join('|'));
}

export interface LegLookup {
  getMarket(marketHash: string): MarketRecord | undefined;
  isInPlay(market: MarketRecord): boolean;
}

/**
 * The leg markets of a request, in its order, or the first rule it breaks: 2 to 10 legs, each an ACTIVE market
 * whose game has not started (a parlay is not enabled for in-play betting and is filed under its earliest leg's
 * fixture, so it closes when its first game starts: with a leg in play it would be closed from birth), neither a
 * parlay nor a quarter-line parent (its money settles on two lines), no two on one market, and no two of one event
 * (their results are correlated; makers price a parlay as a product of its legs).
 */
export function checkParlayLegs(legs: readonly ParlayLeg[], lookup: LegLookup): MarketRecord[] {
  if (legs.length < PARLAY_MIN_LEGS || legs.length > PARLAY_MAX_LEGS) {
    throw new ExchangeError('PARLAY_LEG_COUNT', `a parlay has ${PARLAY_MIN_LEGS} to ${PARLAY_MAX_LEGS} legs, not ${legs.length}`);
  }
  const markets = new Set<string>();
  const events = new Set<string>();
  return legs.map((leg, i) => {
    const hash = leg.marketHash.toLowerCase();
    if (markets.has(hash)) throw new ExchangeError('PARLAY_DUPLICATE_MARKET', `legs[${i}]: market ${hash} is already a leg`);
    markets.add(hash);
    const market = lookup.getMarket(hash);
    if (!market) throw new ExchangeError('MARKET_NOT_FOUND', `legs[${i}]: no market ${hash}`);
    if (market.type === PARLAY_MARKET_TYPE || market.isQuarterLineMarket) {
      throw new ExchangeError('PARLAY_LEG_NOT_ALLOWED', `legs[${i}]: a ${market.type === PARLAY_MARKET_TYPE ? 'parlay' : 'quarter-line market'} cannot be a leg`);
    }
    if (market.status !== 'ACTIVE' || lookup.isInPlay(market)) {
      throw new ExchangeError('PARLAY_LEG_NOT_TRADEABLE', `legs[${i}]: market ${hash} is ${market.status === 'ACTIVE' ? 'in play: a parlay closes when its first game starts' : market.status}`);
    }
    if (events.has(market.exchangeEventId)) {
      throw new ExchangeError('PARLAY_SAME_EVENT', `legs[${i}]: another leg is of event ${market.exchangeEventId}`);
    }
    events.add(market.exchangeEventId);
    return market;
  });
}

/**
 * A parlay's outcome from its legs' outcomes, in leg order: any void leg voids it (stakes return; the public
 * exchange's "other" side wins only when the parlay is not void); otherwise every leg as picked winning is outcome
 * one, any leg as picked losing outcome two.
 */
export function parlayOutcome(legs: readonly ParlayLeg[], outcomes: readonly Outcome[]): Outcome {
  if (outcomes.some((o) => o === 0)) return 0;
  return legs.every((leg, i) => (outcomes[i] === 1) === leg.bettingOutcomeOne) ? 1 : 2;
}

// A market's maker orders as offers to bettors: what each can still take, and the order the exchange fills them in.
import type { Order } from './api/types';
import { ODDS_SCALE } from './format';

/** Taker stake an order can still take: its unfilled maker size at the complementary odds. */
export function takerSpace(o: Order): bigint {
  const p = o.percentageOdds;
  const free = o.totalBetSize - o.fillAmount - o.pendingFillAmount;
  return free > 0n ? (free * (ODDS_SCALE - p)) / p : 0n;
}

/** Offers for backing an outcome in the order the exchange fills them: lowest maker odds first, oldest first within a price. */
export function offersFor(orders: Iterable<Order>, outcomeOne: boolean): Order[] {
  return [...orders]
    .filter((o) => o.isMakerBettingOutcomeOne !== outcomeOne)
    .sort((a, b) => {
      const d = a.percentageOdds - b.percentageOdds;
      return d !== 0n ? (d < 0n ? -1 : 1) : Date.parse(a.createdAt) - Date.parse(b.createdAt);
    });
}

// What an order still offers and commits, from its amounts and status alone: the arithmetic matching, commitments
// and the book agree on. Dust rule: space that would match no maker wei counts as none, so an order left with dust
// is exhausted instead of blocking its side of the book.
import { makerSpaceForTakerStake, remainingTakerSpace } from '../protocol/amounts.js';
import { hasTakeableSpace } from './maker-space-floor.js';
import type { Order, OrderView } from './types.js';

export type OrderSpace = Pick<OrderView, 'totalBetSize' | 'fillAmount' | 'pendingFillAmount' | 'percentageOdds'>;

export const isOpen = (o: Pick<Order, 'status'>) => o.status === 'ACTIVE' || o.status === 'INACTIVE';

/** Maker space still free to match: not filled and not reserved by a pending fill. */
export const freeMakerSpace = (o: OrderSpace) => o.totalBetSize - o.fillAmount - o.pendingFillAmount;

/**
 * Taker stake an order can still take. Zero once the rest is dust that would match no maker wei
 * (e.g. 1 wei left at 45%), so such an order counts as exhausted instead of blocking its side of the book.
 */
export function fillableTakerSpace(o: OrderSpace): bigint {
  const space = remainingTakerSpace(freeMakerSpace(o), o.percentageOdds);
  return makerSpaceForTakerStake(space, o.percentageOdds) > 0n ? space : 0n;
}

/** fillableTakerSpace(o) > 0n, by one comparison (see maker-space-floor.ts). */
export const hasFillableSpace = (o: OrderSpace) => hasTakeableSpace(freeMakerSpace(o), o.percentageOdds);

/** What an order commits of its maker's balance: the unfilled size while open, the pending fills once closed. */
export const orderExposure = (o: Order) => (isOpen(o) ? o.totalBetSize - o.fillAmount : o.pendingFillAmount);

export const isExpired = (o: Pick<Order, 'apiExpiry' | 'expiry'>, at: number) => o.apiExpiry * 1000 <= at || o.expiry * 1000 <= at;

/** A taker could match it now: active, unexpired and with more than dust left. */
export const isTakeable = (o: Order, at: number) => o.status === 'ACTIVE' && !isExpired(o, at) && hasFillableSpace(o);

/**
 * On its book for the no-cross rule: takeable now, or would be if the pending fills holding its rest failed. A failed
 * fill gives its space back, so an order posted across this one would leave a crossed book.
 */
export const holdsBookPlace = (o: Order, at: number) =>
  isOpen(o) && !isExpired(o, at) && hasTakeableSpace(o.totalBetSize - o.fillAmount, o.percentageOdds);

// Whether a position can be cashed out, and whether a cash-out fill hedges it: the engine asks before it quotes
// (GET /cashout/quote) and twice while it matches a cash-out fill (before the walk, and with what the walk returns).
// Reads only: a refusal leaves every part as it was.
import { hedgeNeed } from './cash-out.js';
import { DomainError } from './errors.js';
import type { PendingFills } from './pending-fills.js';
import type { Settlement } from './settlement.js';
import type { Command } from './types.js';

/**
 * The position a cash out would hedge, and its hedge's side and return. Refused when there is no position, when
 * refunds were paid on it (no cash out after a refund), or when it is already flat.
 */
export function cashOutPosition(settlement: Settlement, marketHash: string, bettor: string) {
  const held = settlement.positionIn(marketHash, bettor);
  if (!held) throw new DomainError('NO_POSITION');
  if (held.refunded > 0n) throw new DomainError('CASHOUT_AFTER_REFUND', `${held.refunded} wei of this position was refunded early`);
  const hedge = hedgeNeed(held.totals);
  if (!hedge) throw new DomainError('NOTHING_TO_CASH_OUT');
  return { held, hedge };
}

/** One cash out of a position at a time: its result changes the position the next one would hedge. */
export function refuseWhileCashOutPending(fills: PendingFills, marketHash: string, bettor: string): void {
  if (!fills.hasCashOut(marketHash, bettor)) return;
  const f = [...fills.values()].find((r) => r.cashOut && r.taker === bettor && r.marketHash === marketHash)!;
  throw new DomainError('CASHOUT_PENDING', `the cash out ${f.fillHash} of this position waits for the chain`);
}

/**
 * A cash-out fill must hedge the taker's confirmed position in its market: the hedge's side, a return no larger
 * than the position needs (a smaller one hedges part of it), no other cash out of it waiting for the chain.
 * `returned` is what the fill's matches return (taker plus maker stakes), once the walk has run.
 */
export function checkCashOut(
  settlement: Settlement,
  fills: PendingFills,
  cmd: Extract<Command, { kind: 'fill' }>,
  returned: bigint | undefined,
): void {
  const { market, taker } = cmd;
  if (market.legs) throw new DomainError('NO_POSITION', 'a quarter-line market holds no positions (its legs do): cash out a leg');
  const { hedge } = cashOutPosition(settlement, market.marketHash, taker);
  if (cmd.isTakerBettingOutcomeOne !== hedge.isTakerBettingOutcomeOne) {
    throw new DomainError('CASHOUT_WRONG_SIDE', `the hedge of this position backs outcome ${hedge.isTakerBettingOutcomeOne ? 'one' : 'two'}`);
  }
  refuseWhileCashOutPending(fills, market.marketHash, taker);
  if (returned !== undefined && returned > hedge.need) {
    throw new DomainError('CASHOUT_STAKE_TOO_HIGH', `the fill would return ${returned}, more than the ${hedge.need} the hedge needs: ask for a new quote`);
  }
}

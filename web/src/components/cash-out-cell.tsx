// A position's cash-out value, priced against the book now and asked again whenever the market's book or the position
// changes (a subscription, not polling: a quote the book cannot give is a 400 each time it is asked), with a button that cashes it
// out: the quoted hedge (its side, stake and odds) signed as a fill whose cashOutTarget is the market. When it
// confirms, the position is paid at once what it is owed in every result, less the cash-out fee; the rest (if a result
// pays more) at settlement.
import { useState } from 'react';
import { OddexApiError } from '@oddex/sdk';
import { exchange } from '../api/exchange';
import { money } from '../format';
import { useChannelRefresh } from '../realtime/live-data';
import { useSession } from '../session';
import { useLoad } from './status';
import type { Position } from '../api/types';
import type { Wallet } from '../wallet/wallet';

/** Refusals that no change of the book undoes. */
const FINAL = new Set(['CASHOUT_AFTER_REFUND', 'NOTHING_TO_CASH_OUT', 'NO_POSITION']);

/** Why there is no value to show, in a few words, by the exchange's refusal. */
const reasonOf = (error: unknown) =>
  error instanceof OddexApiError
    ? ({ CASHOUT_AFTER_REFUND: 'hedged', NOTHING_TO_CASH_OUT: 'hedged', INSUFFICIENT_SPACE: 'not enough on offer', TAKER_AMOUNT_TOO_LOW: 'too small', NO_POSITION: '—' } as Record<string, string>)[error.errorCode] ?? error.errorCode
    : 'unavailable';

/**
 * The figures of a position that its quote depends on (with the book): the quote is asked again when one of them
 * changes, never because the page read its other data again (a new list of trades, a balance) with the same position.
 */
export const positionKey = (p: Position) =>
  [p.marketHash, p.stakeOutcomeOne, p.stakeOutcomeTwo, p.payoutIfOutcomeOne, p.payoutIfOutcomeTwo, p.pendingStake, p.refunds, p.cashedOut].join(':');

export function CashOutCell({ wallet, position, onTaken }: { wallet: Wallet; position: Position; onTaken: () => void }) {
  const { realtime } = useSession();
  const { marketHash } = position;
  const quote = useLoad(() => exchange.cashoutQuote(marketHash, wallet.address), positionKey(position));
  const [busy, setBusy] = useState(false);
  const [failed, setFailed] = useState<string>();
  const reload = quote.reload;
  // A hedged position stays hedged: following the book stops once the exchange says so.
  const final = quote.error instanceof OddexApiError && FINAL.has(quote.error.errorCode);
  useChannelRefresh<unknown>(realtime, final ? undefined : `order_book:market_${marketHash}`, () => true, reload);

  async function take() {
    const q = quote.data;
    if (!q) return;
    setBusy(true);
    setFailed(undefined);
    try {
      await exchange.fill(wallet, {
        marketHash,
        isTakerBettingOutcomeOne: q.isTakerBettingOutcomeOne,
        stakeWei: q.stakeWei,
        desiredOdds: q.desiredOdds,
        oddsSlippage: 0,
        cashOutTarget: marketHash,
      });
      onTaken();
    } catch (err) {
      setFailed(err instanceof OddexApiError ? err.errorCode : String(err));
    } finally {
      setBusy(false);
      reload();
    }
  }

  if (quote.error !== undefined && !quote.loading) return <td className="num muted" data-label="Cash out now" data-cash-out="">{reasonOf(quote.error)}</td>;
  if (!quote.data) return <td className="num muted" data-label="Cash out now">…</td>;
  const { amount, fee, paidNow, stakeWei } = quote.data;
  // The offer names its fee and what the bettor gets: the value after the fee, and what is paid when the hedge
  // confirms (a result paying more pays the rest at settlement).
  return (
    <td className="num cash-out" data-label="Cash out now" data-cash-out={amount.toString()} data-cash-out-fee={fee.toString()} data-paid-now={paidNow.toString()}>
      <div>
        <span className="amount">{money(amount)}</span>{' '}
        <button disabled={busy} onClick={() => void take()} title={`Hedge stake ${money(stakeWei)}`}>
          Cash out
        </button>
        <span className="muted small cash-out-terms" data-cash-out-terms>
          {fee > 0n ? `after a ${money(fee)} fee` : 'no fee'}: you receive {money(paidNow)} when it confirms
        </span>
        {failed && <span className="muted small"> {failed}</span>}
      </div>
    </td>
  );
}

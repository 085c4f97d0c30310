// A position's cash-out value, priced against the book now and asked again whenever the market's book or the position
// changes (a subscription, not polling: a quote the book cannot give is a 400 each time it is asked), with a button that cashes it
// out: the quoted hedge (its side, stake and odds) signed as a fill whose cashOutTarget is the market. When it
// confirms, the position is paid at once what it is owed in every result, less the cash-out fee; the rest (if a result
// pays more) at settlement. A book that covers only part of the hedge is asked for that part (a partial quote): the
// cell offers it as such, and what it leaves stays a position, quoted again once the book offers more.
import { useState } from 'react';
import { makerSpaceForTakerStake, OddexApiError, remainingTakerSpace } from '@oddex/sdk';
import { exchange } from '../api/exchange';
import { money } from '../format';
import { useChannelRefresh } from '../realtime/live-data';
import { useSession } from '../session';
import { useLoad } from './status';
import type { Position } from '../api/types';
import type { Wallet } from '../wallet/wallet';

/** Refusals that no change of the book undoes: the position has to change first (or the market settles). */
const FINAL = new Set(['CASHOUT_AFTER_REFUND', 'NOTHING_TO_CASH_OUT', 'NO_POSITION', 'CASHOUT_PENDING', 'MARKET_REPORTED']);

/** Why there is no value to show, in a few words, by the exchange's refusal (or what the page knows of it). */
const REASONS: Record<string, string> = {
  CASHOUT_AFTER_REFUND: 'none after a refund',
  NOTHING_TO_CASH_OUT: 'hedged',
  CASHOUT_PENDING: 'cash out confirming',
  NO_POSITION: 'settling',
  MARKET_REPORTED: 'settling',
  INSUFFICIENT_SPACE: 'not enough on offer',
  TAKER_AMOUNT_TOO_LOW: 'too small',
};
const codeOf = (error: unknown) => (error instanceof OddexApiError ? error.errorCode : 'CLIENT_ERROR');

/**
 * The figures of a position that its quote depends on (with the book): the quote is asked again when one of them
 * changes, never because the page read its other data again (a new list of trades, a balance) with the same position.
 */
const positionKey = (p: Position) => `${confirmedKey(p)}:${p.pendingStake}`;
/** The same without the stakes still waiting for the chain: what a cash out changes once it confirms. */
const confirmedKey = (p: Position) => [p.marketHash, p.stakeOutcomeOne, p.stakeOutcomeTwo, p.payoutIfOutcomeOne, p.payoutIfOutcomeTwo, p.refunds, p.cashedOut].join(':');

/**
 * What the exchange would refuse, read from the position itself, so the page does not ask (each refused request is
 * an error in the browser's console): a position paid capital-efficiency refunds cannot be cashed out, and one paying
 * the same on either outcome is hedged already. (A position a wei or so from flat is left for the exchange to judge.)
 */
function refusalOf(p: Position): string | undefined {
  if (p.refunds > 0n) return 'CASHOUT_AFTER_REFUND';
  if (p.payoutIfOutcomeOne === p.payoutIfOutcomeTwo) return 'NOTHING_TO_CASH_OUT';
  return undefined;
}

interface BookOrder {
  status?: string;
  maker?: string;
  isMakerBettingOutcomeOne?: boolean;
  percentageOdds?: string;
  totalBetSize?: string;
  fillAmount?: string;
  pendingFillAmount?: string;
}
/** Whether an order's free space still matches a taker wei (more than the dust a fill taking it whole may leave). */
function takeable(o: BookOrder): boolean {
  const odds = BigInt(o.percentageOdds ?? '0');
  const free = BigInt(o.totalBetSize ?? '0') - BigInt(o.fillAmount ?? '0') - BigInt(o.pendingFillAmount ?? '0');
  return odds > 0n && free > 0n && makerSpaceForTakerStake(remainingTakerSpace(free, odds), odds) > 0n;
}
/**
 * Whether a book publication offers more to a hedge that took all the book had (a partial cash out): an order of
 * another maker on the hedge's side (makers backing the outcome the hedge does not) with space left to take.
 */
const offersMore = (data: unknown, makerBacksOne: boolean, wallet: string) =>
  Array.isArray(data) &&
  data.some(
    (o: BookOrder) =>
      o.status === 'ACTIVE' && o.isMakerBettingOutcomeOne === makerBacksOne && o.maker?.toLowerCase() !== wallet.toLowerCase() && takeable(o),
  );

/** A book publication of the market's report: its orders cancelled because it settles (no position is left to price). */
const isReport = (data: unknown) =>
  Array.isArray(data) && data.length > 0 && data.every((o: { status?: string; cancelReason?: string }) => o.status === 'INACTIVE' && o.cancelReason === 'market_reported');

export function CashOutCell({
  wallet,
  position,
  fillStatus,
  onTaken,
}: {
  wallet: Wallet;
  position: Position;
  /** The chain status of one of the wallet's fills, as the page's live trades show it (undefined until listed). */
  fillStatus: (fillHash: string) => string | undefined;
  onTaken: () => void;
}) {
  const { realtime } = useSession();
  const { marketHash } = position;
  // The cash out this cell sent, until it changes the position (confirmed) or fails on the chain: meanwhile the
  // exchange would refuse a quote (CASHOUT_PENDING), so none is asked.
  const [sent, setSent] = useState<{ fillHash: string; confirmed: string }>();
  const [reported, setReported] = useState(false);
  // A partial cash out this cell sent took everything the book offered the hedge: once it changed the position, a quote
  // would be refused (INSUFFICIENT_SPACE) until another maker offers more on the hedge's side, so none is asked till then.
  const [drained, setDrained] = useState<{ confirmed: string; makerBacksOne: boolean }>();
  const waiting = sent !== undefined && sent.confirmed === confirmedKey(position) && fillStatus(sent.fillHash) !== 'FAILED';
  const short = drained !== undefined && drained.confirmed !== confirmedKey(position);
  const known = refusalOf(position) ?? (reported ? 'MARKET_REPORTED' : waiting ? 'CASHOUT_PENDING' : short ? 'INSUFFICIENT_SPACE' : undefined);
  const quote = useLoad(async () => (known === undefined ? exchange.cashoutQuote(marketHash, wallet.address) : undefined), `${positionKey(position)}:${known ?? ''}`);
  const [busy, setBusy] = useState(false);
  const [failed, setFailed] = useState<string>();
  const reload = quote.reload;
  // Following the book stops once the exchange (or the position) says no change of it would give a quote.
  const final = (known !== undefined && known !== 'CASHOUT_PENDING' && !short) || (quote.error !== undefined && FINAL.has(codeOf(quote.error)));
  const relevant = (data: unknown) => {
    if (isReport(data)) {
      setReported(true);
      return false;
    }
    if (drained !== undefined && offersMore(data, drained.makerBacksOne, wallet.address)) {
      // More on offer: the rest can be quoted. Once the cash out confirmed, that changes the cell's key, which asks;
      // while it waits, its confirmation will.
      setDrained(undefined);
      if (short) return false;
    }
    return known === undefined;
  };
  useChannelRefresh<unknown>(realtime, final ? undefined : `order_book:market_${marketHash}`, relevant, reload);

  async function take() {
    const q = quote.data;
    if (!q) return;
    const confirmed = confirmedKey(position);
    setBusy(true);
    setFailed(undefined);
    try {
      const fill = await exchange.fill(wallet, {
        marketHash,
        isTakerBettingOutcomeOne: q.isTakerBettingOutcomeOne,
        stakeWei: q.stakeWei,
        desiredOdds: q.desiredOdds,
        oddsSlippage: 0,
        cashOutTarget: marketHash,
      });
      setSent({ fillHash: fill.fillHash, confirmed });
      setDrained(q.partial ? { confirmed, makerBacksOne: !q.isTakerBettingOutcomeOne } : undefined);
      onTaken();
    } catch (err) {
      setFailed(codeOf(err) === 'CLIENT_ERROR' ? String(err) : codeOf(err));
      reload();
    } finally {
      setBusy(false);
    }
  }

  const refused = known ?? (quote.error !== undefined && !quote.loading ? codeOf(quote.error) : undefined);
  if (refused !== undefined) {
    return (
      <td className="num muted" data-label="Cash out now" data-cash-out="" data-cash-out-refusal={refused}>
        {REASONS[refused] ?? (refused === 'CLIENT_ERROR' ? 'unavailable' : refused)}
      </td>
    );
  }
  if (!quote.data) return <td className="num muted" data-label="Cash out now">…</td>;
  const { amount, fee, paidNow, stakeWei, partial, uncoveredWei } = quote.data;
  // The offer names its fee and what the bettor gets: the value after the fee, and what is paid when the hedge
  // confirms (a result paying more pays the rest at settlement). A partial one says so, and what it leaves unhedged.
  return (
    <td
      className="num cash-out"
      data-label="Cash out now"
      data-cash-out={amount.toString()}
      data-cash-out-fee={fee.toString()}
      data-paid-now={paidNow.toString()}
      {...(partial ? { 'data-cash-out-partial': (uncoveredWei ?? 0n).toString() } : {})}
    >
      <div>
        <span className="amount">{money(amount)}</span>{' '}
        <button disabled={busy} onClick={() => void take()} title={`Hedge stake ${money(stakeWei)}`}>
          {partial ? 'Cash out part' : 'Cash out'}
        </button>
        <span className="muted small cash-out-terms" data-cash-out-terms>
          {fee > 0n ? `after a ${money(fee)} fee` : 'no fee'}: you receive {money(paidNow)} when it confirms
          {partial && `; the book covers part of the position: ${money(uncoveredWei ?? 0n)} of its payout stays unhedged, to cash out when more is on offer`}
        </span>
        {failed && <span className="muted small"> {failed}</span>}
      </div>
    </td>
  );
}

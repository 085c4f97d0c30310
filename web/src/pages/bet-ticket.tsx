// The bet ticket: outcome, stake, expected odds and payout, slippage; the betting delay while it runs; the result.
import { useEffect, useState } from 'react';
import { exchange } from '../api/exchange';
import type { FillResult, Market, Order, Trade } from '../api/types';
import { OddexApiError, OddexNetworkError, bettingDelayFor } from '@oddex/sdk';
import { DemoFunds } from '../components/demo-funds';
import { ErrorBox, useLoad } from '../components/status';
import { OutcomeToggle } from '../components/outcome-toggle';
import { money, parseAmount, showOdds, takerOdds, units, type OddsFormat } from '../format';
import { useSession } from '../session';
import { estimateFill, offersFor, takerSpace } from '../offers';
import type { FeedState } from '../realtime/local-book';

/**
 * The slippage a fill may name: `oddsSlippage` is an integer percent from 0 to 100 (spec, POST /orders/fill/v2), so a
 * whole number in that range, as typed; undefined for anything else (decimals included), never rounded.
 */
function parseSlippage(text: string): number | undefined {
  const t = text.trim();
  if (!/^\d{1,3}$/.test(t)) return undefined;
  const n = Number(t);
  return n <= 100 ? n : undefined;
}

type TicketState =
  | { step: 'editing' }
  | { step: 'waiting'; since: number }
  | { step: 'done'; result: FillResult; stake: bigint }
  | { step: 'refused'; error: unknown };

/** Milliseconds since `since` (a performance.now() time), ticking every 100 ms while it is set. */
function useElapsed(since: number | undefined): number {
  const [elapsed, setElapsed] = useState({ since, ms: 0 });
  useEffect(() => {
    if (since === undefined) return;
    const t = setInterval(() => setElapsed({ since, ms: performance.now() - since }), 100);
    return () => clearInterval(t);
  }, [since]);
  return elapsed.since === since ? elapsed.ms : 0;
}

interface TicketProps {
  market: Market;
  /** The fixture is in progress: the in-play betting delay applies. */
  inPlay: boolean;
  /** Why the market takes no bet now ("the market is suspended", …); undefined while it does. */
  closed?: string | undefined;
  orders: Map<string, Order>;
  /** The book's feed: its offers are only known to be current while it is live. */
  feed: FeedState;
  format: OddsFormat;
  myTrades: Trade[] | undefined;
}

export function BetTicket({ market, inPlay, closed, orders, feed, format, myTrades }: TicketProps) {
  const { wallet } = useSession();
  const [outcomeOne, setOutcomeOne] = useState(true);
  const [stakeText, setStakeText] = useState('');
  const [slippageText, setSlippageText] = useState('1');
  const [state, setState] = useState<TicketState>({ step: 'editing' });
  // A new bet being written: the last one's result or refusal no longer describes what the ticket shows.
  const edited = <T,>(set: (value: T) => void) => (value: T) => {
    set(value);
    if (state.step === 'done' || state.step === 'refused') setState({ step: 'editing' });
  };
  const demoFunds = useLoad(() => exchange.demoFundsOffer(), 'demoFunds');
  const meta = useLoad(() => exchange.metadata(), 'once');
  const minimum = meta.data ? Object.values(meta.data.takerMinimums)[0] : undefined;
  const delayMs = meta.data?.bettingDelays ? bettingDelayFor(meta.data.bettingDelays, market, inPlay) : undefined;
  const elapsed = useElapsed(state.step === 'waiting' ? state.since : undefined);

  // The wallet's own orders never match its bets: neither its price nor its size is on offer to it.
  const offers = offersFor(orders.values(), outcomeOne).filter((o) => o.maker.toLowerCase() !== wallet.address.toLowerCase());
  const best = offers[0];
  const odds = best ? takerOdds(best.percentageOdds) : undefined;
  const onOffer = offers.reduce((sum, o) => sum + takerSpace(o), 0n);
  const stake = parseAmount(stakeText);
  const slippage = parseSlippage(slippageText);
  // The bet's payout as the book in sight would fill it: level by level, within the slippage from the best odds.
  const estimate =
    stake !== undefined && odds !== undefined ? estimateFill(offers, stake, (odds * BigInt(100 - (slippage ?? 0))) / 100n) : undefined;
  const outcomeName = outcomeOne ? market.outcomeOneName : market.outcomeTwoName;
  const trade = state.step === 'done' ? myTrades?.find((t) => t.fillHash === state.result.fillHash) : undefined;

  /** `since` is the click's event time (performance.now() scale). */
  const place = async (since: number) => {
    if (stake === undefined || odds === undefined || slippage === undefined || closed) return;
    setState({ step: 'waiting', since });
    try {
      const result = await exchange.fill(wallet, { marketHash: market.marketHash, isTakerBettingOutcomeOne: outcomeOne, stakeWei: stake, desiredOdds: odds, oddsSlippage: slippage });
      setState({ step: 'done', result, stake });
    } catch (error) {
      setState({ step: 'refused', error });
    }
  };

  return (
    <section className="card ticket" aria-label="Bet ticket">
      <h2>Bet ticket</h2>
      <OutcomeToggle market={market} outcomeOne={outcomeOne} onChange={edited(setOutcomeOne)} label="Outcome" />
      <label>
        Stake (USDC){minimum && <span className="muted"> · minimum {units(minimum)}</span>}
        <input inputMode="decimal" value={stakeText} onChange={(e) => edited(setStakeText)(e.target.value)} placeholder="e.g. 10" aria-label="Stake" />
      </label>
      {stakeText !== '' && stake === undefined && <p className="error">Enter a positive amount with at most 6 decimals.</p>}
      <label>
        Slippage tolerance (%)
        <input inputMode="numeric" value={slippageText} onChange={(e) => edited(setSlippageText)(e.target.value)} aria-label="Slippage" />
      </label>
      {slippage === undefined && (
        <p className="error" data-slippage-error>
          Enter the slippage as a whole percent from 0 to 100: the exchange takes no decimals.
        </p>
      )}
      <dl className="facts">
        <dt>Expected odds</dt>
        <dd>
          {odds !== undefined ? (
            <>
              {showOdds(odds, format)}
              {estimate && estimate.covered > 0n && estimate.averageOdds !== odds && (
                <span className="muted" data-average-odds={estimate.averageOdds.toString()}>
                  {' '}
                  (best; {showOdds(estimate.averageOdds, format)} on average for your stake)
                </span>
              )}
            </>
          ) : feed === 'loading' ? (
            <span className="muted">reading the order book…</span>
          ) : (
            <span className="muted">no offer on {outcomeName}</span>
          )}
        </dd>
        <dt>Payout if it wins</dt>
        <dd data-payout={estimate?.payout.toString() ?? ''}>
          {estimate && estimate.covered > 0n ? money(estimate.payout) : '-'}
          {estimate && estimate.covered > 0n && estimate.covered < (stake ?? 0n) && <span className="muted small"> for {money(estimate.covered)} of your stake</span>}
        </dd>
      </dl>
      {feed === 'reconnecting' && (
        <p className="notice" role="status" data-stale-prices>
          The live prices are reconnecting: the offers and expected odds shown may be out of date. A bet is matched at the
          book as it is when the bet arrives.
        </p>
      )}
      {estimate && stake !== undefined && estimate.covered < stake && (
        <p className="notice" data-uncovered={(stake - estimate.covered).toString()}>
          {estimate.limitedBySlippage
            ? `Within your ${slippage ?? 0}% slippage the book in sight covers only ${money(estimate.covered)} of your stake on ${outcomeName} (${money(onOffer)} on offer): a bet fills that much at most.`
            : `Only ${money(estimate.covered)} is on offer on ${outcomeName} now: a bet fills that much at most.`}
        </p>
      )}
      <button
        className="primary"
        disabled={state.step === 'waiting' || stake === undefined || odds === undefined || slippage === undefined || closed !== undefined}
        onClick={(e) => void place(e.timeStamp)}
      >
        Bet on {outcomeName}
      </button>
      {/* A bet here now could only be refused (MARKET_NOT_TRADEABLE): the ticket says so instead of when it would match. */}
      {closed !== undefined && (
        <p className="muted small" data-ticket-closed>
          No bet can be placed now: {closed}.
        </p>
      )}
      {closed === undefined && delayMs !== undefined && delayMs > 0 && state.step === 'editing' && (
        <p className="muted small" data-betting-delay={delayMs}>
          {inPlay ? 'In play' : 'Before kick-off'}, a bet is matched {(delayMs / 1000).toFixed(1)} s after you place it, at the best odds then
          within your slippage.
        </p>
      )}
      {state.step === 'waiting' && (
        <p className="notice" role="status">
          Betting delay running: {(elapsed / 1000).toFixed(1)} s. Your bet is matched when it ends.
        </p>
      )}
      {state.step === 'done' && (
        <div className="notice" role="status" data-fill-hash={state.result.fillHash}>
          <p>
            <strong>{state.result.isPartialFill ? 'Partly filled' : 'Filled'}</strong>: {money(state.result.totalFilled)}
            {state.result.isPartialFill && ` of ${money(state.stake)}`} at {showOdds(state.result.averageOdds, format)}.
          </p>
          <p>
            Settlement transaction: <span className={`status ${trade?.tradeStatus ?? 'PENDING'}`}>{trade?.tradeStatus ?? 'PENDING'}</span>
          </p>
        </div>
      )}
      {state.step === 'refused' && (
        <div role="status">
          {state.error instanceof OddexNetworkError ? (
            // The request may have reached the exchange before the connection failed.
            <p>No answer came from the exchange: the bet may or may not have been placed. Check your bets here before betting again.</p>
          ) : (
            <p>Your bet was refused.</p>
          )}
          <ErrorBox error={state.error} />
          {/* A new wallet's first bet: where the exchange gives demo funds, offer them right here. */}
          {state.error instanceof OddexApiError && state.error.errorCode === 'INSUFFICIENT_BALANCE' && demoFunds.data && (
            <DemoFunds address={wallet.address} offer={demoFunds.data} empty={false} onGranted={() => {}} />
          )}
        </div>
      )}
    </section>
  );
}

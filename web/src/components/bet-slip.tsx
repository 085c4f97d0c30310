// The bet slip: selections from several fixtures combined into one parlay. Requesting it asks the market makers
// for quotes (POST /parlays/request); they quote unseen for the quote window, then every offer shows at once and
// the bettor takes one before the fill deadline.
import { useEffect, useState } from 'react';
import { clientFor } from '../api/exchange';
import type { FillResult, Market, Order } from '../api/types';
import { useBetSlip } from '../bet-slip-state';
import { money, parseAmount, payoutFor, showOdds, takerOdds } from '../format';
import { linkTo } from '../route';
import { offersFor, takerSpace } from '../offers';
import { useSession } from '../session';
import { ErrorBox } from './status';

type SlipState =
  | { step: 'editing' }
  | { step: 'quoting'; parlay: Market }
  | { step: 'offers'; parlay: Market; offers: Order[] }
  | { step: 'filling'; parlay: Market; offers: Order[] }
  | { step: 'done'; parlay: Market; result: FillResult; stake: bigint }
  | { step: 'refused'; error: unknown; parlay?: Market; offers?: Order[] };

/** Whole seconds left until `at` (UNIX ms), ticking every 250 ms; undefined until the first tick. */
function useSecondsUntil(at: number | undefined): number | undefined {
  const [left, setLeft] = useState<{ at: number; seconds: number }>();
  useEffect(() => {
    if (at === undefined) return;
    const tick = () => setLeft({ at, seconds: Math.max(0, Math.ceil((at - Date.now()) / 1000)) });
    const t = setInterval(tick, 250);
    const first = setTimeout(tick, 0);
    return () => {
      clearInterval(t);
      clearTimeout(first);
    };
  }, [at]);
  return left?.at === at ? left?.seconds : undefined;
}

export function BetSlipPanel() {
  const slip = useBetSlip();
  const { wallet, oddsFormat } = useSession();
  const [stakeText, setStakeText] = useState('');
  const [state, setState] = useState<SlipState>({ step: 'editing' });
  // On a phone the slip rides at the bottom of the screen over the page: the bettor may fold it to its header.
  const [folded, setFolded] = useState(false);
  const stake = parseAmount(stakeText);
  const parlay = 'parlay' in state ? state.parlay : undefined;
  const quoteLeft = useSecondsUntil(state.step === 'quoting' ? parlay?.parlay?.quoteWindowEndsAt : undefined);
  const fillLeft = useSecondsUntil(state.step === 'offers' ? parlay?.parlay?.fillDeadline : undefined);

  if (slip.selections.length === 0 && state.step === 'editing') return null;
  const client = clientFor(wallet);

  const request = async () => {
    if (stake === undefined) return;
    try {
      const market = await client.requestParlay({ legs: slip.selections, requestSize: stake });
      setState({ step: 'quoting', parlay: market });
      setState({ step: 'offers', parlay: market, offers: await client.parlayOffers(market) });
    } catch (error) {
      setState({ step: 'refused', error });
    }
  };

  const take = async (market: Market, offers: Order[], offer: Order) => {
    if (stake === undefined) return;
    setState({ step: 'filling', parlay: market, offers });
    try {
      const result = await client.fill({ marketHash: market.marketHash, isTakerBettingOutcomeOne: true, stakeWei: stake, desiredOdds: takerOdds(offer.percentageOdds), oddsSlippage: 0 });
      setState({ step: 'done', parlay: market, result, stake });
      slip.clear();
    } catch (error) {
      setState({ step: 'refused', error, parlay: market, offers });
    }
  };

  const restart = () => setState({ step: 'editing' });
  // In the order the exchange fills them: a fill takes the first one (a bet cannot pick an offer further down).
  const shownOffers = 'offers' in state ? offersFor(state.offers ?? [], true) : [];
  const editable = state.step === 'editing' || (state.step === 'refused' && !state.offers);

  return (
    <section className="card slip" aria-label="Bet slip">
      <div className="slip-head">
        <h2>
          Bet slip <span className="muted">({slip.selections.length})</span>
        </h2>
        <button className="link" aria-expanded={!folded} onClick={() => setFolded(!folded)}>
          {folded ? 'Show' : 'Hide'}
        </button>
      </div>
      <div className="slip-body" hidden={folded}>
        {slip.selections.length > 0 && (
          <ul className="legs">
            {slip.selections.map((s) => (
              <li key={s.marketHash} data-leg={s.marketHash}>
                <a href={linkTo.market(s.marketHash)}>{s.label}</a>
                {editable && (
                  <button className="link" aria-label={`Remove ${s.label}`} onClick={() => slip.remove(s.marketHash)}>
                    ×
                  </button>
                )}
              </li>
            ))}
          </ul>
        )}
        {editable && (
          <>
            {slip.selections.length < 2 && <p className="muted">Add a selection from another fixture to make a parlay (2 to 10 legs).</p>}
            <label>
              Stake (USDC)
              <input inputMode="decimal" value={stakeText} onChange={(e) => setStakeText(e.target.value)} placeholder="e.g. 10" aria-label="Parlay stake" />
            </label>
            <button className="primary" disabled={slip.selections.length < 2 || stake === undefined} onClick={() => void request()}>
              Request parlay
            </button>
          </>
        )}
        {state.step === 'quoting' && (
          <p className="notice" role="status">
            Market makers are quoting: offers show{quoteLeft === undefined ? ' shortly' : ` in ${quoteLeft} s`}.
          </p>
        )}
        {'offers' in state && state.offers && parlay && (
          <div aria-label="Parlay offers" data-parlay={parlay.marketHash}>
            {state.step === 'offers' && fillLeft !== undefined && <p className="muted">Take it within {fillLeft} s.</p>}
            {shownOffers.length === 0 ? (
              <p className="muted">No market maker quoted this parlay. Makers may leave small stakes unquoted: a larger stake may get offers.</p>
            ) : (
              <>
                <table>
                  <thead>
                    <tr>
                      <th>Offer</th>
                      <th className="num">Pays</th>
                    </tr>
                  </thead>
                  <tbody>
                    {shownOffers.map((o, i) => {
                      const odds = takerOdds(o.percentageOdds);
                      // An offer pays for no more of the stake than its maker's size covers.
                      const space = takerSpace(o);
                      const takes = stake !== undefined && stake > space ? space : stake;
                      return (
                        <tr key={o.orderHash} data-offer={o.orderHash}>
                          <td className="num">
                            {showOdds(odds, oddsFormat)}
                            {i === 0 && shownOffers.length > 1 && <span className="muted"> (filled first)</span>}
                          </td>
                          <td className="num" data-pays>
                            {takes !== undefined ? money(payoutFor(takes, odds)) : ''}
                            {takes !== undefined && stake !== undefined && takes < stake && (
                              <span className="muted small"> for {money(takes)} of your {money(stake)}</span>
                            )}
                          </td>
                        </tr>
                      );
                    })}
                  </tbody>
                </table>
                {shownOffers.length > 1 && <p className="muted">The exchange fills the offers in this order.</p>}
                <button className="primary" disabled={state.step !== 'offers'} onClick={() => void take(parlay, shownOffers, shownOffers[0]!)}>
                  Take at {showOdds(takerOdds(shownOffers[0]!.percentageOdds), oddsFormat)}
                </button>
              </>
            )}
          </div>
        )}
        {state.step === 'done' && (
          <div className="notice" role="status" data-fill-hash={state.result.fillHash}>
            <p>
              <strong>{state.result.isPartialFill ? 'Parlay partly filled' : 'Parlay filled'}</strong>: {money(state.result.totalFilled)}
              {state.result.isPartialFill && ` of ${money(state.stake)}`} at {showOdds(state.result.averageOdds, oddsFormat)}.
            </p>
            <p>
              <a href={linkTo.market(state.parlay.marketHash)}>The parlay market</a> settles once every leg is reported.
            </p>
            <button onClick={restart}>New parlay</button>
          </div>
        )}
        {state.step === 'refused' && (
          <div role="status">
            <p>The parlay was refused.</p>
            <ErrorBox error={state.error} />
            <button onClick={restart}>Start again</button>
          </div>
        )}
      </div>
    </section>
  );
}

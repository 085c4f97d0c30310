// One fixture: its markets grouped by type, each outcome with the best odds a bettor can take now.
import { exchange } from '../api/exchange';
import type { BestOdds, Market } from '../api/types';
import { OddsToggle } from '../components/odds-toggle';
import { LiveState } from '../components/live-state';
import { Empty, ErrorBox, Loading, useLoad } from '../components/status';
import { gameTimeText, marketTypeName, showOdds, takerOdds } from '../format';
import { IN_PLAY, useLeagueFixtures, useLiveScores } from '../realtime/fixture-live';
import { useChannelRefresh } from '../realtime/live-data';
import { linkTo } from '../route';
import { useSession } from '../session';
import { useBetSlip } from '../bet-slip-state';

/** Best taker odds for backing an outcome: the complement of the best maker on the other outcome. */
export function bestTakerOdds(entry: BestOdds | undefined, outcomeOne: boolean): bigint | undefined {
  const opposite = outcomeOne ? entry?.outcomeTwo : entry?.outcomeOne;
  return opposite?.percentageOdds ? takerOdds(opposite.percentageOdds) : undefined;
}

function groupByType(markets: Market[]): [string, Market[]][] {
  const groups = new Map<string, Market[]>();
  for (const m of markets) {
    const name = marketTypeName(m.type);
    groups.set(name, [...(groups.get(name) ?? []), m]);
  }
  for (const list of groups.values()) list.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
  return [...groups];
}

export function FixturePage({ eventId }: { eventId: string }) {
  const { oddsFormat, realtime } = useSession();
  const slip = useBetSlip();
  const markets = useLoad(() => exchange.marketsOfEvent(eventId), eventId);
  // The fixture's status (in play or not) is its league's fixture list's; the markets name the league.
  const fixtures = useLeagueFixtures(realtime, markets.data?.[0]?.leagueId);
  const score = useLiveScores(realtime, [eventId]).get(eventId);
  const best = useLoad(async () => {
    const list = markets.data ? await exchange.bestOdds(markets.data.map((m) => m.marketHash)) : [];
    return new Map(list.map((e) => [e.marketHash, e]));
  }, (markets.data ?? []).map((m) => m.marketHash).join(','));
  // Read again whenever an order of the fixture changes: posts, fills, cancels and expiries alike (best_odds:global
  // says nothing when a side loses its last order).
  useChannelRefresh<unknown>(realtime, `order_book:event_${eventId}`, () => true, best.reload);

  if (markets.error) return <ErrorBox error={markets.error} />;
  if (!markets.data) return <Loading what="markets" />;
  const first = markets.data[0];
  const inPlay = fixtures.records?.get(eventId)?.status === IN_PLAY;
  const price = (m: Market, one: boolean) => {
    const odds = bestTakerOdds(best.data?.get(m.marketHash), one);
    // The market's type too: several markets of a fixture can share an outcome's name (a moneyline and a 1X2 side).
    const label = `${one ? m.outcomeOneName : m.outcomeTwoName} (${marketTypeName(m.type)})`;
    const picked = slip.has(m.marketHash, one);
    return (
      <>
        {odds === undefined ? <span className="muted">no offer</span> : <strong>{showOdds(odds, oddsFormat)}</strong>}{' '}
        {/* A quarter line settles on two lines and cannot be a parlay leg; nor can a market closed in play. */}
        {!m.isQuarterLineMarket && !(inPlay && !m.liveEnabled) && <button
          className={picked ? 'slip-add picked' : 'slip-add'}
          aria-pressed={picked}
          aria-label={`${picked ? 'Remove' : 'Add'} ${label} ${picked ? 'from' : 'to'} bet slip`}
          onClick={() => slip.toggle({ marketHash: m.marketHash, exchangeEventId: m.exchangeEventId, bettingOutcomeOne: one, label })}
        >
          {picked ? '✓' : '+'}
        </button>}
      </>
    );
  };

  return (
    <>
      <section className="card">
        <p className="crumbs">
          <a href={linkTo.home()}>All sports</a>
          {first && ` › ${first.sportLabel} › ${first.leagueLabel}`}
        </p>
        <h1>{first ? `${first.teamOneName} v ${first.teamTwoName}` : eventId}</h1>
        <LiveState status={fixtures.records?.get(eventId)?.status} score={score} periods />
        {first && <p className="muted">{gameTimeText(first.gameTime)}</p>}
        <OddsToggle />
      </section>
      <ErrorBox error={best.error} />
      {markets.data.length === 0 && <Empty>This fixture has no active market.</Empty>}
      {groupByType(markets.data).map(([name, list]) => (
        <section className="card" key={name}>
          <h2>{name}</h2>
          <table className="markets">
            <thead>
              <tr>
                <th>Market (outcome one / outcome two)</th>
                <th className="num">Back one</th>
                <th className="num">Back two</th>
              </tr>
            </thead>
            <tbody>
              {list.map((m) => (
                <tr key={m.marketHash}>
                  <td>
                    <a href={linkTo.market(m.marketHash)} data-market-hash={m.marketHash}>
                      {m.outcomeOneName} / {m.outcomeTwoName}
                    </a>
                    {m.mainLine && <span className="tag">main line</span>}
                    {inPlay && !m.liveEnabled && <span className="tag">closed in play</span>}
                  </td>
                  <td className="num">{price(m, true)}</td>
                  <td className="num">{price(m, false)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      ))}
    </>
  );
}

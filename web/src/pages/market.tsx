// A market: price history, live order book, recent trades, bet ticket and maker panel.
import { exchange } from '../api/exchange';
import type { Market, Trade } from '../api/types';
import { OddsToggle } from '../components/odds-toggle';
import { LiveState } from '../components/live-state';
import { PriceChart } from '../components/price-chart';
import { Empty, ErrorBox, Loading, useLoad } from '../components/status';
import { betDate, gameTimeText, marketTypeName, money, placedOn, showOdds } from '../format';
import { IN_PLAY, useLeagueFixtures, useLiveScores } from '../realtime/fixture-live';
import { useChannelRefresh, useMyOrders, useMyTrades } from '../realtime/live-data';
import { useLocalBook } from '../realtime/local-book';
import { linkTo } from '../route';
import { useSession } from '../session';
import { BetTicket } from './bet-ticket';
import { OrderBook } from './book';
import { MakerPanel } from './maker';

function RecentTrades({ market, trades, format }: { market: Market; trades: Trade[] | undefined; format: 'decimal' | 'implied' }) {
  const takers = (trades ?? []).filter((t) => !t.maker);
  return (
    <section className="card" aria-label="Recent trades">
      <h2>Recent trades</h2>
      {!trades ? (
        <Loading what="trades" />
      ) : takers.length === 0 ? (
        <Empty>No trade on this market yet.</Empty>
      ) : (
        <table>
          <tbody>
            {takers.map((t) => (
              <tr key={t._id}>
                <td>{betDate(t.betTime).toLocaleTimeString()}</td>
                <td>{t.bettingOutcomeOne ? market.outcomeOneName : market.outcomeTwoName}</td>
                <td className="num">{money(t.stake)}</td>
                <td className="num">{showOdds(t.odds, format)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** The wallet's own bets (as a taker) on the market, newest first: a bet placed before a reload is found here. */
function MyBets({ market, myTrades, format }: { market: Market; myTrades: Trade[] | undefined; format: 'decimal' | 'implied' }) {
  const bets = (myTrades ?? []).filter((t) => !t.maker && placedOn(t) === market.marketHash);
  if (bets.length === 0) return null;
  return (
    <section className="card" aria-label="Your bets here">
      <h2>Your bets here</h2>
      <ul className="list">
        {bets.map((t) => (
          <li key={t._id} data-my-bet={t.fillHash}>
            {money(t.stake)} on {t.bettingOutcomeOne ? market.outcomeOneName : market.outcomeTwoName} at {showOdds(t.odds, format)} ·{' '}
            <span className={`status ${t.tradeStatus}`}>{t.tradeStatus}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

export function MarketPage({ marketHash }: { marketHash: string }) {
  const { wallet, realtime, oddsFormat } = useSession();
  const found = useLoad(() => exchange.findMarkets([marketHash]), marketHash);
  const book = useLocalBook(realtime, marketHash);
  // Suspended, reopened or settled while the page is open: markets:global says so, and the page reads the market again.
  useChannelRefresh<Market[]>(realtime, 'markets:global', (d) => d.some((m) => m.marketHash === marketHash), found.reload);
  const trades = useLoad(() => exchange.tradesOfMarket(marketHash), marketHash);
  useChannelRefresh<Trade | Trade[]>(realtime, 'recent_trades:global', (d) => [d].flat().some((t) => placedOn(t) === marketHash), trades.reload);
  const myTrades = useMyTrades(realtime, wallet.address);
  const myOrders = useMyOrders(realtime, wallet.address);
  const eventId = found.data?.[0]?.exchangeEventId;
  const fixtures = useLeagueFixtures(realtime, found.data?.[0]?.leagueId);
  const score = useLiveScores(realtime, eventId ? [eventId] : []).get(eventId ?? '');

  if (found.error) return <ErrorBox error={found.error} />;
  if (!found.data) return <Loading what="market" />;
  const market = found.data[0];
  if (!market) return <Empty>No market {marketHash}.</Empty>;
  const settled = market.outcome !== undefined && market.reportedDate !== undefined;
  const status = fixtures.records?.get(market.exchangeEventId)?.status;
  const closedInPlay = status === IN_PLAY && !market.liveEnabled;
  // Why the exchange takes no bet or order here now (the notices above say so too); undefined while it does.
  const closed = market.status === 'SUSPENDED' ? 'the market is suspended' : closedInPlay ? 'the market does not trade in play' : undefined;

  return (
    <>
      <section className="card">
        <p className="crumbs">
          <a href={linkTo.home()}>All sports</a> › <a href={linkTo.fixture(market.exchangeEventId)}>{market.teamOneName} v {market.teamTwoName}</a>
        </p>
        <h1>
          {marketTypeName(market.type)}: {market.outcomeOneName} / {market.outcomeTwoName}
        </h1>
        <LiveState status={status} score={score} />
        <p className="muted">
          {market.leagueLabel} · {gameTimeText(market.gameTime)} · {settled ? `settled: ${resultText(market)}` : market.status}
        </p>
        {closedInPlay && !settled && <p className="notice">This market does not trade in play: it takes no bets or orders while its fixture is in progress.</p>}
        {market.status === 'SUSPENDED' && !settled && <p className="notice">This market is suspended: it takes no bets or orders until the exchange reopens it.</p>}
        <OddsToggle />
      </section>
      <PriceChart market={market} realtime={realtime} />
      <div className="columns">
        <div>
          <OrderBook market={market} book={book} format={oddsFormat} me={wallet.address} />
          <RecentTrades market={market} trades={trades.data} format={oddsFormat} />
        </div>
        <div>
          <MyBets market={market} myTrades={myTrades.data} format={oddsFormat} />
          {settled ? (
            <p className="notice card">This market is settled ({resultText(market)}): it takes no more bets or orders.</p>
          ) : (
            <>
              <BetTicket market={market} inPlay={status === IN_PLAY} closed={closed} orders={book.orders} feed={book.state} format={oddsFormat} myTrades={myTrades.data} />
              <MakerPanel market={market} closed={closed} myOrders={myOrders.data} myTrades={myTrades.data} reloadOrders={myOrders.reload} format={oddsFormat} />
            </>
          )}
        </div>
      </div>
    </>
  );
}

/** A settled market's result in words: the winning outcome's name, or a void. */
function resultText(market: Market): string {
  if (market.outcome === 1) return `${market.outcomeOneName} won`;
  if (market.outcome === 2) return `${market.outcomeTwoName} won`;
  return 'void, stakes returned';
}

// The live order book of one market, as the two lists a bettor can take: backing outcome one takes the
// makers on outcome two, and the other way round. Each row is one maker order.
import type { Market, Order } from '../api/types';
import { Empty } from '../components/status';
import { ODDS_SCALE, showOdds, takerOdds, units, type OddsFormat } from '../format';
import type { BookView } from '../realtime/local-book';

/** Taker stake an order can still take: its unfilled maker size at the complementary odds. */
export function takerSpace(o: Order): bigint {
  const p = o.percentageOdds;
  const free = o.totalBetSize - o.fillAmount - o.pendingFillAmount;
  return free > 0n ? (free * (ODDS_SCALE - p)) / p : 0n;
}

/** Offers for backing an outcome, best taker odds first (lowest maker odds), oldest first within a price. */
export function offersFor(orders: Iterable<Order>, outcomeOne: boolean): Order[] {
  return [...orders]
    .filter((o) => o.isMakerBettingOutcomeOne !== outcomeOne)
    .sort((a, b) => {
      const d = a.percentageOdds - b.percentageOdds;
      return d !== 0n ? (d < 0n ? -1 : 1) : Date.parse(a.createdAt) - Date.parse(b.createdAt);
    });
}

function Side({ title, offers, format, me }: { title: string; offers: Order[]; format: OddsFormat; me: string }) {
  return (
    <div className="book-side">
      <h3>{title}</h3>
      {offers.length === 0 ? (
        <Empty>No offer.</Empty>
      ) : (
        <table>
          <thead>
            <tr>
              <th>Odds</th>
              <th className="num">Available</th>
            </tr>
          </thead>
          <tbody>
            {offers.map((o) => (
              <tr key={o.orderHash} data-order-hash={o.orderHash} className={o.maker.toLowerCase() === me.toLowerCase() ? 'mine' : undefined}>
                <td>{showOdds(takerOdds(o.percentageOdds), format)}</td>
                <td className="num">{units(takerSpace(o))}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

export function OrderBook({ market, book, format, me }: { market: Market; book: BookView; format: OddsFormat; me: string }) {
  return (
    <section className="card" aria-label="Order book" data-feed={book.state} data-rebuilds={book.rebuilds}>
      <h2>
        Order book <span className={`feed ${book.state}`}>{book.state === 'live' ? 'live' : book.state === 'loading' ? 'loading…' : 'reconnecting…'}</span>
      </h2>
      {book.error && <p className="error">The book could not be read: {book.error}</p>}
      <div className="book">
        <Side title={`Back ${market.outcomeOneName}`} offers={offersFor(book.orders.values(), true)} format={format} me={me} />
        <Side title={`Back ${market.outcomeTwoName}`} offers={offersFor(book.orders.values(), false)} format={format} me={me} />
      </div>
      <p className="muted small">Your own orders are highlighted. Amounts are the stake a bettor can still place, in USDC.</p>
    </section>
  );
}

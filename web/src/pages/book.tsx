// The live order book of one market, as the two lists a bettor can take: backing outcome one takes the
// makers on outcome two, and the other way round. Each row is one maker order.
import type { Market, Order } from '../api/types';
import { Empty, Loading } from '../components/status';
import { showOdds, takerOdds, units, type OddsFormat } from '../format';
import { offersFor, takerSpace } from '../offers';
import type { BookView } from '../realtime/local-book';

function Side({ title, offers, format, me, loading }: { title: string; offers: Order[]; format: OddsFormat; me: string; loading: boolean }) {
  return (
    <div className="book-side">
      <h3>{title}</h3>
      {/* Until the first snapshot is read, an empty side says nothing about the offers. */}
      {loading ? (
        <Loading what="offers" />
      ) : offers.length === 0 ? (
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
        <Side title={`Back ${market.outcomeOneName}`} offers={offersFor(book.orders.values(), true)} format={format} me={me} loading={book.state === 'loading'} />
        <Side title={`Back ${market.outcomeTwoName}`} offers={offersFor(book.orders.values(), false)} format={format} me={me} loading={book.state === 'loading'} />
      </div>
      <p className="muted small">Your own orders are highlighted. Amounts are the stake a bettor can still place, in USDC.</p>
    </section>
  );
}

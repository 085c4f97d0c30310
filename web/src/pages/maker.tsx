// The maker's view of a market: post an order on the odds ladder, see it in the book, cancel it, see its fills.
import { useState } from 'react';
import { exchange } from '../api/exchange';
import type { Market, Order, Trade } from '../api/types';
import { Empty, ErrorBox } from '../components/status';
import { OpenOrderCells, OpenOrderHead } from '../components/open-order-cells';
import { OutcomeToggle } from '../components/outcome-toggle';
import { decimalOdds, impliedPercent, money, parseAmount, percentToLadder, placedOn, showOdds, shortHash, takerOdds, units, type OddsFormat } from '../format';
import { useSession } from '../session';
import { useLoad } from '../components/status';

const STATUS_WORDS: Record<string, string> = {
  OK: 'Order posted.',
  INSUFFICIENT_BALANCE: 'Refused: your balance does not cover this order and your other open orders.',
  INVALID_MARKET: 'Refused: the market is not valid for this order.',
  ORDERS_ALREADY_EXIST: 'This order already exists.',
  ORDER_WOULD_CROSS: 'Refused: these odds would cross the best order on the other side.',
};

export function MakerPanel({
  market,
  closed,
  myOrders,
  myTrades,
  reloadOrders,
  format,
}: {
  market: Market;
  /** Why the market takes no order now; its open orders can still be cancelled. */
  closed?: string | undefined;
  myOrders: Order[] | undefined;
  myTrades: Trade[] | undefined;
  reloadOrders(): void;
  format: OddsFormat;
}) {
  const { wallet } = useSession();
  const meta = useLoad(() => exchange.metadata(), 'once');
  const [outcomeOne, setOutcomeOne] = useState(true);
  const [oddsText, setOddsText] = useState('50');
  const [sizeText, setSizeText] = useState('');
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string>();
  const [error, setError] = useState<unknown>();

  const step = meta.data?.oddsLadderStepSize ?? 125;
  const odds = percentToLadder(oddsText, step);
  const size = parseAmount(sizeText);
  const minimum = meta.data ? Object.values(meta.data.makerOrderMinimums)[0] : undefined;
  const mine = (myOrders ?? []).filter((o) => o.marketHash === market.marketHash && o.orderStatus === 'ACTIVE');
  const fills = (myTrades ?? []).filter((t) => t.maker && placedOn(t) === market.marketHash);

  async function run(action: () => Promise<string>) {
    setBusy(true);
    setError(undefined);
    setMessage(undefined);
    try {
      setMessage(await action());
      reloadOrders();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  const post = () =>
    run(async () => {
      const r = await exchange.postOrder(wallet, { marketHash: market.marketHash, isMakerBettingOutcomeOne: outcomeOne, totalBetSize: size!, percentageOdds: odds!, lifetimeSeconds: 24 * 3600 });
      return `${STATUS_WORDS[r.status] ?? `Order not posted: ${r.status}.`} (${r.status}, ${shortHash(r.orderHash)})`;
    });
  const cancel = (hashes: string[]) =>
    run(async () => {
      const r = await exchange.cancelOrders(wallet, hashes);
      const refused = r.notCancelled.map((n) => `${shortHash(n.orderHash)}: ${n.reason}`).join(', ');
      return `${r.cancelledCount} order(s) cancelled.${refused ? ` Not cancelled: ${refused}.` : ''}`;
    });

  return (
    <section className="card" aria-label="Maker">
      <h2>Make a market</h2>
      <p className="muted small">Post your own odds; bettors take them. You risk the size if the outcome you back loses.</p>
      <OutcomeToggle market={market} outcomeOne={outcomeOne} onChange={setOutcomeOne} label="Maker outcome" />
      <label>
        Your probability (%) on the ladder of {Number(step) / 1000}%
        <input inputMode="decimal" value={oddsText} onChange={(e) => setOddsText(e.target.value)} aria-label="Maker odds percent" />
      </label>
      {odds === undefined ? (
        <p className="error">Enter a percentage between 0 and 100.</p>
      ) : (
        <p className="muted small">
          On the ladder: {impliedPercent(odds)} (decimal {decimalOdds(odds)}); bettors taking it get {showOdds(takerOdds(odds), format)}.
        </p>
      )}
      <label>
        Size you risk (USDC){minimum && <span className="muted"> · minimum {units(minimum)}</span>}
        <input inputMode="decimal" value={sizeText} onChange={(e) => setSizeText(e.target.value)} placeholder="e.g. 25" aria-label="Maker size" />
      </label>
      <button className="primary" disabled={busy || odds === undefined || size === undefined || closed !== undefined} onClick={() => void post()}>
        Post order
      </button>
      {closed !== undefined && (
        <p className="muted small" data-maker-closed>
          No order can be posted now: {closed}.
        </p>
      )}
      {message && (
        <p className="notice" role="status">
          {message}
        </p>
      )}
      <ErrorBox error={error} />
      <h3>Your open orders here</h3>
      {mine.length === 0 ? (
        <Empty>No open order on this market.</Empty>
      ) : (
        <table aria-label="My open orders">
          <OpenOrderHead />
          <tbody>
            {mine.map((o) => (
              <tr key={o.orderHash} data-my-order={o.orderHash}>
                <OpenOrderCells order={o} side={o.isMakerBettingOutcomeOne ? market.outcomeOneName : market.outcomeTwoName} busy={busy} onCancel={(hash) => void cancel([hash])} />
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h3>Your fills as maker</h3>
      {fills.length === 0 ? (
        <Empty>None yet.</Empty>
      ) : (
        <ul className="list">
          {fills.map((t) => (
            <li key={t._id} data-my-fill={t.fillHash}>
              {money(t.stake)} on {t.bettingOutcomeOne ? market.outcomeOneName : market.outcomeTwoName} at {showOdds(t.odds, format)} · <span className={`status ${t.tradeStatus}`}>{t.tradeStatus}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

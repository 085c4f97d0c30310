// The wallet's account: balance and escrow, open orders, positions with profit and loss and the statement of its
// funds (both as the exchange computes them), trades with their chain status and settlement, capital-efficiency
// refunds. Kept live by the wallet's channels.
import { useEffect, useState } from 'react';
import { exchange } from '../api/exchange';
import type { Market, Position, StatementEntry, Trade } from '../api/types';
import { Empty, ErrorBox, Loading, useLoad } from '../components/status';
import { CashOutCell } from '../components/cash-out-cell';
import { DemoFunds } from '../components/demo-funds';
import { OpenOrderCells, OpenOrderHead } from '../components/open-order-cells';
import { parseUnits } from 'viem';
import { betDate, money, showOdds, shortHash, TOKEN_DECIMALS } from '../format';
import { useChannelRefresh, useMyOrders, useMyTrades } from '../realtime/live-data';
import { linkTo } from '../route';
import { useSession } from '../session';

/**
 * Profit or loss of one trade once settled, after the fee on its winnings, as the exchange paid it: its netReturn
 * (payout less fee less stake). Not recomputed from stake and odds: a quarter line's leg trades share the bet's
 * rounding, so a leg's stake / odds can be a wei away from what the leg paid.
 */
const settledProfit = (t: Trade): bigint => parseUnits(t.netReturn, TOKEN_DECIMALS);

/** An open position's profit or loss if each outcome wins: what it would pay less its stakes. */
const ifWins = (p: Position) => {
  const stakes = p.stakeOutcomeOne + p.stakeOutcomeTwo;
  return { one: p.payoutIfOutcomeOne - stakes, two: p.payoutIfOutcomeTwo - stakes };
};

const KIND_LABELS: Record<StatementEntry['kind'], string> = {
  deposit: 'Deposit',
  withdrawal: 'Withdrawal',
  stake: 'Stake to escrow',
  refund: 'Refund',
  cashout: 'Cash out',
  payout: 'Payout',
  fee: 'Commission',
};

/**
 * How often the balance alone is read again while the page is in view: a deposit (the operator's faucet, a token
 * transfer on a chain) is published on no channel the page follows.
 */
const BALANCE_POLL_MS = 5000;

const signed = (wei: bigint) => (wei > 0n ? `+${money(wei)}` : wei < 0n ? `-${money(-wei)}` : money(0n));

export function AccountPage() {
  const { wallet, realtime, oddsFormat } = useSession();
  const balance = useLoad(() => exchange.balance(wallet.address), wallet.address);
  const demoFunds = useLoad(() => exchange.demoFundsOffer(), 'demoFunds');
  const trades = useMyTrades(realtime, wallet.address);
  const orders = useMyOrders(realtime, wallet.address);
  const refunds = useLoad(() => exchange.refunds(wallet.address), wallet.address);
  const positions = useLoad(() => exchange.positions(wallet.address), wallet.address);
  const statement = useLoad(() => exchange.statement(wallet.address), wallet.address);
  useChannelRefresh(realtime, `ce_refunds:${wallet.address}`, () => true, refunds.reload);
  // A quarter-line bet is recorded as two leg trades on the legs' own markets, each naming its line: the leg's
  // positions, statement entries and trades say which quarter line they came from (a whole line such as 0 can be a
  // leg of two: -0.25 and +0.25).
  const quarterLinesOf = new Map<string, Set<string>>();
  for (const t of trades.data ?? []) {
    if (!t.quarterLineParentMarketHash) continue;
    const parents = quarterLinesOf.get(t.marketHash) ?? new Set<string>();
    quarterLinesOf.set(t.marketHash, parents.add(t.quarterLineParentMarketHash));
  }
  const hashes = [
    ...new Set(
      (trades.data ?? [])
        .map((t) => t.marketHash)
        .concat((orders.data ?? []).map((o) => o.marketHash))
        .concat([...quarterLinesOf.values()].flatMap((parents) => [...parents])),
    ),
  ].slice(0, 30);
  const markets = useLoad(async () => new Map((hashes.length ? await exchange.findMarkets(hashes) : []).map((m) => [m.marketHash, m])), hashes.join(','));
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string>();
  const [error, setError] = useState<unknown>();

  // Balance moves with trades, orders and refunds: read it again whenever one of them changes.
  const tradesKey = (trades.data ?? []).map((t) => `${t._id}:${t.tradeStatus}:${t.settled}`).join();
  const reloadBalance = balance.reload;
  useEffect(() => reloadBalance(), [reloadBalance, tradesKey, orders.data, refunds.data]);
  // A deposit comes on no channel: the balance is read every few seconds while the page is in view, and at once when
  // it comes back into view. Only the balance: the rest follows when its figures change.
  useEffect(() => {
    const readIfVisible = () => {
      if (document.visibilityState === 'visible') reloadBalance();
    };
    const timer = setInterval(readIfVisible, BALANCE_POLL_MS);
    document.addEventListener('visibilitychange', readIfVisible);
    return () => {
      clearInterval(timer);
      document.removeEventListener('visibilitychange', readIfVisible);
    };
  }, [reloadBalance]);
  const b = balance.data;
  const balanceKey = b ? `${b.balance}:${b.escrowed}:${b.openExposure}:${b.pendingTakerStake}` : '';
  // Positions and the statement follow trades, settlements, refunds and balance changes the same way (a read of the
  // balance that finds the same figures changes nothing).
  const reloadPositions = positions.reload;
  const reloadStatement = statement.reload;
  useEffect(() => {
    reloadPositions();
    reloadStatement();
  }, [reloadPositions, reloadStatement, tradesKey, refunds.data, balanceKey]);

  const fillStatus = (fillHash: string) => trades.data?.find((t) => t.fillHash === fillHash)?.tradeStatus;
  const name = (m: Market | undefined, one: boolean) => (m ? (one ? m.outcomeOneName : m.outcomeTwoName) : one ? 'outcome one' : 'outcome two');
  const marketTitle = (hash: string) => {
    const m = markets.data?.get(hash);
    return m ? `${m.teamOneName} v ${m.teamTwoName}: ${m.outcomeOneName} / ${m.outcomeTwoName}` : shortHash(hash);
  };

  /**
   * Beside a leg market: the quarter line(s) it is a leg of, by the line's name ("Alpha FC -0.25 / Beta FC +0.25", or
   * the side bet on, "Alpha FC -0.25"), linked to the line's page.
   */
  const quarterLine = (parents: Iterable<string> | undefined, side?: boolean) =>
    [...(parents ?? [])].map((parent) => {
      const m = markets.data?.get(parent);
      const lineName = !m ? shortHash(parent) : side === undefined ? `${m.outcomeOneName} / ${m.outcomeTwoName}` : name(m, side);
      return (
        <span key={parent} className="muted small" data-quarter-line={parent}>
          {' '}
          · leg of quarter line <a href={linkTo.market(parent)}>{lineName}</a>
        </span>
      );
    });

  async function cancel(hashes?: string[]) {
    setBusy(true);
    setError(undefined);
    try {
      const r = hashes ? await exchange.cancelOrders(wallet, hashes) : await exchange.cancelAll(wallet);
      const refused = r.notCancelled.map((n) => `${shortHash(n.orderHash)}: ${n.reason}`).join(', ');
      setMessage(`${r.cancelledCount} order(s) cancelled.${refused ? ` Not cancelled: ${refused}.` : ''}`);
      orders.reload();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  const openOrders = (orders.data ?? []).filter((o) => o.orderStatus === 'ACTIVE' || o.orderStatus === 'INACTIVE');
  return (
    <>
      <section className="card" aria-label="Balance">
        <h1>My account</h1>
        <p className="muted small">
          {wallet.kind === 'development' ? 'Development wallet' : 'Browser wallet'} <code>{wallet.address}</code>
        </p>
        <ErrorBox error={balance.error} />
        {!balance.data ? (
          <Loading what="balance" />
        ) : (
          <dl className="facts">
            <dt>Balance</dt>
            <dd data-balance={balance.data.balance}>{money(balance.data.balance)}</dd>
            <dt>In escrow (unsettled bets)</dt>
            <dd>{money(balance.data.escrowed)}</dd>
            <dt>Held by open orders</dt>
            <dd>{money(balance.data.openExposure)}</dd>
          </dl>
        )}
        {balance.data && demoFunds.data && (
          <DemoFunds address={wallet.address} offer={demoFunds.data} empty={balance.data.balance === 0n} onGranted={balance.reload} />
        )}
        {balance.data && demoFunds.data === null && balance.data.balance === 0n && (
          <p className="notice">This wallet has no funds yet. An operator can send test funds from the console (Faucet).</p>
        )}
      </section>

      <section className="card" aria-label="Open orders">
        <h2>Open orders</h2>
        <ErrorBox error={orders.error ?? error} />
        {message && <p className="notice">{message}</p>}
        {!orders.data ? (
          <Loading what="orders" />
        ) : openOrders.length === 0 ? (
          <Empty>No open order.</Empty>
        ) : (
          <>
            <table>
              <OpenOrderHead first="Market" />
              <tbody>
                {openOrders.map((o) => (
                  <tr key={o.orderHash} data-my-order={o.orderHash}>
                    <td>
                      <a href={linkTo.market(o.marketHash)}>{marketTitle(o.marketHash)}</a>
                    </td>
                    <OpenOrderCells order={o} side={name(markets.data?.get(o.marketHash), o.isMakerBettingOutcomeOne)} busy={busy} onCancel={(hash) => void cancel([hash])} />
                  </tr>
                ))}
              </tbody>
            </table>
            <button disabled={busy} onClick={() => void cancel()}>
              Cancel all
            </button>
          </>
        )}
      </section>

      <section className="card" aria-label="Positions">
        <h2>Positions</h2>
        <ErrorBox error={positions.error} />
        {!positions.data ? (
          <Loading what="positions" />
        ) : positions.data.length === 0 ? (
          <Empty>No position yet. Place a bet from a market page.</Empty>
        ) : (
          <table className="stack">
            <thead>
              <tr>
                <th>Market</th>
                <th className="num">Staked</th>
                <th className="num">In escrow</th>
                <th className="num">Refunded</th>
                <th className="num">If outcome one wins</th>
                <th className="num">If outcome two wins</th>
                <th className="num">Settled P&amp;L</th>
                <th className="num">Cash out now</th>
              </tr>
            </thead>
            <tbody>
              {positions.data.map((p) => (
                <tr key={p.marketHash} data-position={p.marketHash}>
                  <td data-label="Market">
                    <span>
                      <a href={linkTo.market(p.marketHash)}>{marketTitle(p.marketHash)}</a>
                      {quarterLine(quarterLinesOf.get(p.marketHash))}
                    </span>
                  </td>
                  <td className="num" data-label="Staked">{money(p.stakeOutcomeOne + p.stakeOutcomeTwo)}</td>
                  <td className="num" data-label="In escrow" data-escrow={p.escrow.toString()}>{money(p.escrow)}</td>
                  <td className="num" data-label="Refunded">{money(p.refunds)}</td>
                  <td className="num" data-label="If outcome one wins">{p.settled ? '' : signed(ifWins(p).one)}</td>
                  <td className="num" data-label="If outcome two wins">{p.settled ? '' : signed(ifWins(p).two)}</td>
                  <td className="num" data-label="Settled P&L" data-settled-pnl={p.settledProfit?.toString() ?? ''}>
                    {p.settledProfit === undefined ? <span className="muted">open</span> : signed(p.settledProfit)}
                  </td>
                  {/* Only confirmed stakes make a position the exchange can price a cash out of. */}
                  {!p.settled && p.stakeOutcomeOne + p.stakeOutcomeTwo > 0n ? (
                    <CashOutCell wallet={wallet} position={p} fillStatus={fillStatus} onTaken={trades.reload} />
                  ) : (
                    <td />
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>

      <section className="card" aria-label="Statement">
        <h2>Statement</h2>
        <p className="muted small">Every movement of your funds, newest first, with the balance after it.</p>
        <ErrorBox error={statement.error} />
        {!statement.data ? (
          <Loading what="statement" />
        ) : statement.data.length === 0 ? (
          <Empty>No movement yet.</Empty>
        ) : (
          <table className="stack">
            <thead>
              <tr>
                <th>Time</th>
                <th>Movement</th>
                <th>Market</th>
                <th className="num">Amount</th>
                <th className="num">Balance</th>
              </tr>
            </thead>
            <tbody>
              {statement.data.map((e) => (
                <tr key={e.id} data-statement-entry={e.kind} data-balance-after={e.balance.toString()}>
                  <td data-label="Time">{new Date(e.time).toLocaleString()}</td>
                  <td data-label="Movement">{KIND_LABELS[e.kind]}</td>
                  <td data-label="Market">
                    {e.marketHash ? (
                      <span>
                        <a href={linkTo.market(e.marketHash)}>{marketTitle(e.marketHash)}</a>
                        {quarterLine(quarterLinesOf.get(e.marketHash))}
                      </span>
                    ) : (
                      ''
                    )}
                  </td>
                  <td className="num" data-label="Amount">{signed(e.amount)}</td>
                  <td className="num" data-label="Balance">{money(e.balance)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>

      <section className="card" aria-label="Trades">
        <h2>Trades</h2>
        <ErrorBox error={trades.error} />
        {trades.data && trades.data.length === 0 && <Empty>No trade yet.</Empty>}
        {trades.data && trades.data.length > 0 && (
          <table className="stack">
            <thead>
              <tr>
                <th>Time</th>
                <th>Bet</th>
                <th className="num">Stake</th>
                <th className="num">Odds</th>
                <th>Status</th>
                <th>Result</th>
              </tr>
            </thead>
            <tbody>
              {trades.data.map((t) => (
                <tr key={t._id} data-fill-hash={t.fillHash}>
                  <td data-label="Time">{betDate(t.betTime).toLocaleString()}</td>
                  <td data-label="Bet">
                    {t.maker ? 'maker' : 'bet'} on {name(markets.data?.get(t.marketHash), t.bettingOutcomeOne)}
                    {t.quarterLineParentMarketHash && quarterLine([t.quarterLineParentMarketHash], t.bettingOutcomeOne)}
                  </td>
                  <td className="num" data-label="Stake">{money(t.stake)}</td>
                  <td className="num" data-label="Odds">{showOdds(t.odds, oddsFormat)}</td>
                  <td data-label="Status">
                    <span className={`status ${t.tradeStatus}`}>{t.tradeStatus}</span>
                  </td>
                  <td data-label="Result">
                    {t.settled ? (
                      <span className="status settled" data-fee={(t.fee ?? 0n).toString()}>
                        settled {signed(settledProfit(t))}
                        {(t.fee ?? 0n) > 0n && <span className="muted small"> (fee {money(t.fee!)})</span>}
                      </span>
                    ) : (
                      <span className="muted">unsettled</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>

      <section className="card" aria-label="Refunds">
        <h2>Capital-efficiency refunds</h2>
        <p className="muted small">When your bets on both sides of a market offset each other, the escrow they no longer need comes back.</p>
        <ErrorBox error={refunds.error} />
        {refunds.data && refunds.data.results.length === 0 && <Empty>No refund.</Empty>}
        {refunds.data?.results.map((g) => (
          <div key={g.marketHash}>
            <strong>{marketTitle(g.marketHash)}</strong>
            <ul className="list">
              {g.events.map((e) => (
                <li key={`${e.fillOrderHash}:${e.createdAt}`}>
                  {money(e.amount)} on {new Date(e.createdAt).toLocaleString()}
                </li>
              ))}
            </ul>
          </div>
        ))}
      </section>
    </>
  );
}

import type { Order } from '../api/types';
import { impliedPercent, units } from '../format';

/** The header row of a list of the wallet's open orders, with a first column of its own (the market) if given. */
export function OpenOrderHead({ first }: { first?: string }) {
  return (
    <thead>
      <tr>
        {first && <th>{first}</th>}
        <th>Backing</th>
        <th>Odds</th>
        <th className="num">Unfilled / size</th>
        <th />
      </tr>
    </thead>
  );
}

/** The cells every list of the wallet's open orders shows: side, odds, size left of size, and a cancel button. */
export function OpenOrderCells({ order, side, busy, onCancel }: { order: Order; side: string; busy: boolean; onCancel(orderHash: string): void }) {
  return (
    <>
      <td>{side}</td>
      <td>{impliedPercent(order.percentageOdds)}</td>
      <td className="num">
        {units(order.totalBetSize - order.fillAmount)} / {units(order.totalBetSize)}
      </td>
      <td>
        <button disabled={busy} onClick={() => onCancel(order.orderHash)}>
          Cancel
        </button>
      </td>
    </>
  );
}

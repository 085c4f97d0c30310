import type { Order } from '../api/types';
import { impliedPercent, units } from '../format';

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

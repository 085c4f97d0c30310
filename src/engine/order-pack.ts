// Open orders in a snapshot, packed: one array per order instead of an object (no repeated keys, amounts as decimal
// strings rather than tagged bigints), and the values many orders share (markets, events, makers, token, executor)
// written once. 100k orders pack to about half the JSON and parse about 2.5x faster; restored orders share those
// strings in memory, and the amounts and the empty pending-fill map most orders have in common.
import type { Order, OrderCancelReason, OrderStatus } from './types.js';

/** Most orders never have a fill pending: they share this empty map until their first fill (it refuses writes). */
class EmptyPendingFills extends Map<string, bigint> {
  override set(): this {
    throw new Error('the shared empty pending-fill map is read-only');
  }
}
export const NO_PENDING_FILLS: Map<string, bigint> = new EmptyPendingFills();

/** One bigint per distinct decimal text: a book's orders repeat a few sizes and odds, and every zero. */
function bigintInterner(): (text: string) => bigint {
  const seen = new Map<string, bigint>();
  return (text) => {
    let value = seen.get(text);
    if (value === undefined) seen.set(text, (value = BigInt(text)));
    return value;
  };
}

type PendingFills = [string, string][];
type Row = [
  orderHash: string,
  marketHash: number,
  exchangeEventId: number,
  maker: number,
  baseToken: number,
  executor: number,
  totalBetSize: string,
  percentageOdds: string,
  fillAmount: string,
  pendingFillAmount: string,
  expiry: number,
  apiExpiry: number,
  salt: string,
  isMakerBettingOutcomeOne: 0 | 1,
  signature: string,
  status: OrderStatus,
  seq: number,
  createdAt: number,
  updatedAt: number,
  pendingFills: PendingFills,
  // Written only for PERSIST orders: rows of snapshots taken before the field existed, and LAPSE orders, lack it.
  persist?: 0 | 1,
  // Written only for cancelled orders still held for their pending fills (persist is then written too).
  cancelReason?: OrderCancelReason,
];

export interface PackedOrders {
  shared: string[];
  rows: Row[];
}

export function packOrders(orders: Iterable<Order>): PackedOrders {
  const shared: string[] = [];
  const index = new Map<string, number>();
  const ref = (s: string) => {
    let i = index.get(s);
    if (i === undefined) {
      i = shared.push(s) - 1;
      index.set(s, i);
    }
    return i;
  };
  const rows: Row[] = [];
  for (const o of orders) {
    const row: Row = [
      o.orderHash,
      ref(o.marketHash),
      ref(o.exchangeEventId),
      ref(o.maker),
      ref(o.baseToken),
      ref(o.executor),
      o.totalBetSize.toString(),
      o.percentageOdds.toString(),
      o.fillAmount.toString(),
      o.pendingFillAmount.toString(),
      o.expiry,
      o.apiExpiry,
      o.salt,
      o.isMakerBettingOutcomeOne ? 1 : 0,
      o.signature,
      o.status,
      o.seq,
      o.createdAt,
      o.updatedAt,
      [...o.pendingFills].map(([fill, amount]) => [fill, amount.toString()]),
    ];
    if (o.cancelReason !== undefined) row.push(o.persistence === 'PERSIST' ? 1 : 0, o.cancelReason);
    else if (o.persistence === 'PERSIST') row.push(1);
    rows.push(row);
  }
  return { shared, rows };
}

export function unpackOrders(packed: PackedOrders): Order[] {
  const s = packed.shared;
  const amount = bigintInterner();
  return packed.rows.map((r) => withCancelReason(r[21], {
    orderHash: r[0],
    marketHash: s[r[1]]!,
    exchangeEventId: s[r[2]]!,
    maker: s[r[3]]!,
    baseToken: s[r[4]]!,
    executor: s[r[5]]!,
    totalBetSize: amount(r[6]),
    percentageOdds: amount(r[7]),
    fillAmount: amount(r[8]),
    pendingFillAmount: amount(r[9]),
    expiry: r[10],
    apiExpiry: r[11],
    salt: r[12],
    isMakerBettingOutcomeOne: r[13] === 1,
    signature: r[14],
    persistence: r[20] === 1 ? 'PERSIST' : 'LAPSE',
    status: r[15],
    seq: r[16],
    createdAt: r[17],
    updatedAt: r[18],
    pendingFills: r[19].length > 0 ? new Map(r[19].map(([fill, text]) => [fill, BigInt(text)])) : NO_PENDING_FILLS,
  }));
}

/** Open orders keep the shape they were restored with; only a cancelled one gains its reason. */
function withCancelReason(reason: OrderCancelReason | undefined, o: Order): Order {
  if (reason !== undefined) o.cancelReason = reason;
  return o;
}

// A bettor's positions per market (GET /positions), read from the trades, refunds and cash outs the read side
// recorded, summed as bigints (the same arithmetic as the SQLite reader, src/store/sqlite/positions.ts).
import type { AsyncQueries, Position, PositionQueries } from '../../ports.js';
import type { Outcome } from '../../../engine/types.js';
import { int, type Queryable } from '../trade-state.js';

interface TradeRow {
  market_hash: string;
  exchange_event_id: string;
  base_token: string;
  outcome_one: boolean;
  stake: string;
  counter_stake: string;
  status: string;
  settled: boolean;
  outcome: number | null;
  payout: string | null;
  fee: string | null;
  bet_time: string;
}

const emptyPosition = (t: TradeRow): Position => ({
  marketHash: t.market_hash,
  exchangeEventId: t.exchange_event_id,
  baseToken: t.base_token,
  stakeOutcomeOne: 0n,
  stakeOutcomeTwo: 0n,
  pendingStake: 0n,
  payoutIfOutcomeOne: 0n,
  payoutIfOutcomeTwo: 0n,
  payoutIfVoid: 0n,
  escrow: 0n,
  refunds: 0n,
  cashedOut: 0n,
  cashOutFees: 0n,
  settled: false,
  lastTradeTime: int(t.bet_time),
});

export class PostgresPositions implements AsyncQueries<PositionQueries> {
  constructor(private readonly db: Queryable) {}

  /** One page of a bettor's positions, the market traded last first, and how many markets it has traded. */
  async page(bettor: string, page: { page: number; perPage: number }): Promise<{ positions: Position[]; count: number }> {
    // Failed fills never held funds: they are no part of a position.
    const [marketRows, countRows] = await Promise.all([
      this.db.query<{ market_hash: string }>(
        `SELECT market_hash FROM rm_trades WHERE bettor = $1 AND status <> 'FAILED'
         GROUP BY market_hash ORDER BY MAX(bet_time) DESC, market_hash LIMIT $2 OFFSET $3`,
        [bettor, page.perPage, page.page * page.perPage],
      ),
      this.db.query<{ n: string }>(`SELECT COUNT(DISTINCT market_hash) AS n FROM rm_trades WHERE bettor = $1 AND status <> 'FAILED'`, [bettor]),
    ]);
    const markets = marketRows.rows.map((r) => r.market_hash);
    const count = Number(countRows.rows[0]!.n);
    if (markets.length === 0) return { positions: [], count };
    const [trades, refunds, cashOuts] = await Promise.all([
      this.db.query<TradeRow>(
        `SELECT market_hash, exchange_event_id, base_token, outcome_one, stake, counter_stake, status, settled, outcome, payout, fee, bet_time
         FROM rm_trades WHERE bettor = $1 AND status <> 'FAILED' AND market_hash = ANY($2::text[]) ORDER BY id`,
        [bettor, markets],
      ),
      this.db.query<{ market_hash: string; amount: string }>('SELECT market_hash, amount FROM rm_refunds WHERE bettor = $1 AND market_hash = ANY($2::text[])', [bettor, markets]),
      this.db.query<{ market_hash: string; amount: string; fee: string }>(
        'SELECT market_hash, amount, fee FROM rm_cashouts WHERE bettor = $1 AND market_hash = ANY($2::text[])',
        [bettor, markets],
      ),
    ]);
    const byMarket = new Map<string, Position>();
    const unsettled = new Set<string>();
    for (const t of trades.rows) {
      let p = byMarket.get(t.market_hash);
      if (!p) byMarket.set(t.market_hash, (p = emptyPosition(t)));
      if (int(t.bet_time) > p.lastTradeTime) p.lastTradeTime = int(t.bet_time);
      const stake = BigInt(t.stake);
      if (t.status !== 'SUCCESS') {
        p.pendingStake += stake;
        continue;
      }
      const wins = stake + BigInt(t.counter_stake);
      if (t.outcome_one) {
        p.stakeOutcomeOne += stake;
        p.payoutIfOutcomeOne += wins;
      } else {
        p.stakeOutcomeTwo += stake;
        p.payoutIfOutcomeTwo += wins;
      }
      p.payoutIfVoid += stake;
      if (t.settled) {
        p.outcome = t.outcome as Outcome;
        p.payout = (p.payout ?? 0n) + BigInt(t.payout ?? '0');
        p.fees = (p.fees ?? 0n) + BigInt(t.fee ?? '0');
      } else {
        unsettled.add(t.market_hash);
      }
    }
    for (const r of refunds.rows) {
      const p = byMarket.get(r.market_hash);
      if (p) p.refunds += BigInt(r.amount);
    }
    for (const r of cashOuts.rows) {
      const p = byMarket.get(r.market_hash);
      if (!p) continue;
      p.cashedOut += BigInt(r.amount);
      p.cashOutFees += BigInt(r.fee);
    }
    for (const p of byMarket.values()) {
      const stakes = p.stakeOutcomeOne + p.stakeOutcomeTwo;
      p.settled = p.payout !== undefined && !unsettled.has(p.marketHash);
      if (p.settled) {
        p.settledProfit = p.payout! - p.fees! - p.cashOutFees - stakes;
      } else {
        p.escrow = stakes - p.refunds - p.cashedOut;
        delete p.outcome;
        delete p.payout;
        delete p.fees;
      }
    }
    return { positions: markets.flatMap((m) => byMarket.get(m) ?? []), count };
  }
}

// Each address's last balance record (rm_balances, written by the projector): GET /balances/:address.
import type { AsyncQueries, BalanceQueries } from '../../ports.js';
import type { BalanceView } from '../../../engine/types.js';
import type { Queryable } from '../trade-state.js';

const ZERO: BalanceView = { balance: 0n, escrowed: 0n, openExposure: 0n, pendingTakerStake: 0n };

interface BalanceRow {
  balance: string;
  escrowed: string;
  open_exposure: string;
  pending_taker_stake: string;
}

export class PostgresBalanceReads implements AsyncQueries<BalanceQueries> {
  constructor(private readonly db: Queryable) {}

  /** An address's balance, escrow, open-order exposure and pending taker stakes (zeros for an unknown address). */
  async balanceOf(address: string): Promise<BalanceView> {
    const { rows } = await this.db.query<BalanceRow>('SELECT balance, escrowed, open_exposure, pending_taker_stake FROM rm_balances WHERE address = $1', [address]);
    const r = rows[0];
    if (!r) return ZERO;
    return { balance: BigInt(r.balance), escrowed: BigInt(r.escrowed), openExposure: BigInt(r.open_exposure), pendingTakerStake: BigInt(r.pending_taker_stake) };
  }
}

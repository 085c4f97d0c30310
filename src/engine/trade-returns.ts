// What a settled trade returned, in wei: shared by the trade rendering and the consolidated read model.
import type { Trade } from './types.js';

/** Net result of a settled trade in wei: payout minus the fee on it, minus stake. */
export const netReturnWei = (t: Trade) => (t.settled ? (t.payout ?? 0n) - (t.fee ?? 0n) - t.stake : 0n);

/** Net return as settlement paid it: the recorded credit (after refunds and the fee) less stake. */
export const settleNetReturnWei = (t: Trade) => (t.settled ? (t.credit ?? t.payout ?? 0n) - t.stake : 0n);

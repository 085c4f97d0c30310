// A fill's record on the settlement chain, as the read models keep it and trades show it.
/**
 * What the chain did with a fill: the transactions that carried it, and the outcome's transaction and reason. The
 * read models answer it; the change records of a commit describe it too (changed-trades.ts).
 */
export interface FillOnChain {
  attempts: string[];
  lastAttemptAt?: number;
  txHash?: string;
  failureReason?: string;
  /** A cash out's fill: what its taker was paid at once (before the fee) when it executed, and the cash-out fee. */
  cashOut?: { amount: bigint; fee: bigint };
}

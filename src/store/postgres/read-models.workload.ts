// For tests: a trading workload run through the real engine, deterministic per seed, as journal entries with their
// change records: faucets and transfers, orders posted, cancelled and expiring, fills (a quarter-line market's too)
// attempted on chain and executed or failed, cash outs, refunds, reports with fees, and the escrow's payouts seen on
// chain. The PostgreSQL read models' tests project it into both stores and compare every answer.
import { Engine } from '../../engine/engine.js';
import { DomainError } from '../../engine/errors.js';
import type { Command, MarketRef } from '../../engine/types.js';
import type { ProjectedEntry } from '../ports.js';

const USDC = 1_000_000n;
const STEP = 125n * 10n ** 15n;
const hash = (prefix: string, i: number) => '0x' + prefix + i.toString(16).padStart(63, '0');

export const ADDRS = [1, 2, 3, 4].map((i) => '0x' + i.toString(16).padStart(40, '0'));
export const FEE_ACCOUNT = '0x' + 'fe'.padStart(40, '0');
export const AFFILIATE = '0x' + 'af'.padStart(40, '0');
export const MARKETS: MarketRef[] = [
  { marketHash: hash('a', 1), exchangeEventId: 'e1', tradeable: true, liveEnabled: false },
  { marketHash: hash('a', 2), exchangeEventId: 'e1', tradeable: true, legs: [hash('a', 3), hash('a', 4)] },
  { marketHash: hash('a', 5), exchangeEventId: 'e2', tradeable: true },
];
/** Markets a report settles: a plain market, a quarter line's legs, another fixture's market. */
export const SETTLE_MARKETS = [hash('a', 1), hash('a', 3), hash('a', 4), hash('a', 5)];

export const engineParams = {
  oddsLadderStepSize: 125,
  makerMinimum: 10n * USDC,
  takerMinimum: USDC,
  cancelMaxSkewSeconds: 60,
  baseToken: ADDRS[0]!,
  restrictionWindowMs: 3_600_000,
  restrictionThreshold: 3,
  restrictionMs: 900_000,
  affiliate: AFFILIATE,
  walletsOnChain: false,
};

/** A Lehmer generator: deterministic, its state within 1..2^31-2; draws from its high bits (the low ones repeat). */
export function random(seed: number): (n: number) => number {
  let state = (seed % 2_147_483_646) + 1;
  return (n: number) => {
    state = (state * 48_271) % 2_147_483_647;
    return Math.floor((state / 2_147_483_647) * n);
  };
}

/**
 * `ops` random operations from `seed`: the journal entries of the commands the engine accepted, in order. Operations
 * are seconds to days apart, or `stepMs` apart when given. `onChain`: wallets live on a chain (funds arrive as chain
 * events, and the chain reports fills executed or failed).
 */
export function engineWorkload(seed: number, ops: number, { stepMs, onChain = false }: { stepMs?: number; onChain?: boolean } = {}): ProjectedEntry[] {
  const rnd = random(seed);
  let at = 1_700_000_000_000;
  const engine = new Engine({ ...engineParams, walletsOnChain: onChain });
  /** Funds reaching a wallet: minted locally, or a transfer (and an approval) seen on chain. */
  const fund = (address: string, amount: bigint, toBlock: number): Command =>
    onChain
      ? { kind: 'chainEvents', at, toBlock, entries: [{ kind: 'wallet', address, delta: amount }, { kind: 'approval', owner: address, amount: 10n ** 30n }] }
      : { kind: 'faucet', at, address, amount };
  const entries: ProjectedEntry[] = [];
  const refunds: number[] = [];
  const reported: string[] = [];
  const apply = (cmd: Command): boolean => {
    try {
      const { changes } = engine.apply(cmd);
      entries.push({ seq: entries.length + 1, at: cmd.at, changes });
      for (const c of changes) if (c.type === 'refundPaid') refunds.push(c.refund.id);
      return true;
    } catch (err) {
      if (err instanceof DomainError) return false;
      throw err;
    }
  };
  ADDRS.forEach((address, i) => apply(fund(address, 2000n * USDC, i)));
  for (let seq = 1; seq <= ops; seq++) {
    // Mostly seconds apart, sometimes minutes, hours or a day: candles of every width open and close.
    at += stepMs ?? [700, 4_000, 65_000, 3_700_000, 90_000_000][[0, 0, 0, 0, 0, 1, 1, 1, 2, 2, 3, 4][rnd(12)]!]!;
    const who = rnd(4);
    const market = MARKETS[rnd(MARKETS.length)]!;
    const op = rnd(20);
    if (op < 6) {
      const size = BigInt(10 + rnd(150)) * USDC;
      apply({
        kind: 'postOrders',
        at,
        markets: MARKETS,
        orders: [{
          orderHash: hash('b', seq), marketHash: market.marketHash, maker: ADDRS[who]!, baseToken: ADDRS[0]!, executor: ADDRS[0]!,
          totalBetSize: size, percentageOdds: BigInt(200 + rnd(400)) * STEP, expiry: Math.floor(at / 1000) + 7_200 + rnd(250_000),
          apiExpiry: Math.floor(at / 1000) + 3_600 + rnd(250_000), salt: String(seq), isMakerBettingOutcomeOne: rnd(2) === 0, signature: '0x',
          ...(rnd(2) === 0 ? { persistence: 'PERSIST' as const } : {}),
        }],
      });
    } else if (op < 11) {
      apply({
        kind: 'fill', at, fillHash: hash('c', seq), market, taker: ADDRS[who]!, baseToken: ADDRS[0]!, isTakerBettingOutcomeOne: rnd(2) === 0,
        stakeWei: BigInt(1 + rnd(120)) * USDC, desiredOdds: rnd(3) === 0 ? BigInt(1 + rnd(799)) * STEP : 1n, oddsSlippage: rnd(100), fillSalt: String(seq),
      });
    } else if (op < 15) {
      const pending = engine.pendingFills();
      if (pending.length === 0) continue;
      const fillHash = pending[rnd(pending.length)]!.fillHash;
      if (rnd(4) === 0) apply({ kind: 'fillAttempt', at, fillHashes: [fillHash], txHash: hash('d', seq) });
      const executed = rnd(6) !== 0;
      if (rnd(2) === 0) apply({ kind: 'confirmFill', at, fillHash, chain: { executed, txHash: hash('e', seq), ...(executed ? {} : { reason: 'reverted' }) } });
      else apply({ kind: 'chainEvents', at, toBlock: seq, entries: [{ kind: 'fill', fillHash, execution: { executed, txHash: hash('e', seq) } }] });
    } else if (op === 15) {
      let quote: ReturnType<Engine['cashOutQuote']> | undefined;
      try {
        quote = engine.cashOutQuote(market.marketHash, ADDRS[who]!, at);
      } catch (err) {
        if (!(err instanceof DomainError)) throw err;
      }
      if (!quote) continue;
      const fillHash = hash('f', seq);
      const paid = apply({
        kind: 'fill', at, fillHash, market, taker: ADDRS[who]!, baseToken: ADDRS[0]!, isTakerBettingOutcomeOne: quote.isTakerBettingOutcomeOne,
        stakeWei: quote.stakeWei, desiredOdds: quote.desiredOdds, oddsSlippage: 0, fillSalt: `f${seq}`,
        cashOut: { feeBps: [0, 100, 2500][rnd(3)]!, feeAccount: FEE_ACCOUNT, affiliateShareBps: [0, 3333][rnd(2)]! },
      });
      if (paid) apply({ kind: 'confirmFill', at, fillHash });
    } else if (op === 16) {
      apply({ kind: 'cancelAll', at, maker: ADDRS[who]!, salt: `s${seq}`, timestamp: Math.floor(at / 1000) });
    } else if (op === 17) {
      if (onChain) apply(fund(ADDRS[who]!, BigInt(1 + rnd(50)) * USDC, seq));
      else apply({ kind: 'transfer', at, from: ADDRS[who]!, to: ADDRS[rnd(4)]!, amount: BigInt(1 + rnd(50)) * USDC });
    } else if (op === 18 && seq > ops / 3) {
      const settle = SETTLE_MARKETS[rnd(SETTLE_MARKETS.length)]!;
      // One settle market stays open: its trades stay unsettled.
      if (reported.includes(settle) || reported.length === SETTLE_MARKETS.length - 1) continue;
      const fees = rnd(2) === 0 ? { fees: { bpsByMarket: { [settle]: [1, 500, 2500][rnd(3)]! }, account: FEE_ACCOUNT, affiliateShareBps: [0, 3333][rnd(2)]! } } : {};
      if (apply({ kind: 'reportMarkets', at, reports: [{ marketHash: settle, outcome: [0, 1, 2][rnd(3)] as 0 | 1 | 2 }], ...fees })) reported.push(settle);
    } else {
      // The escrow paid a settled position, or a refund, on chain.
      const entries = [
        ...(reported.length > 0 ? [{ kind: 'claim' as const, marketHash: reported[rnd(reported.length)]!, bettor: ADDRS[who]!, txHash: hash('9', seq) }] : []),
        ...(refunds.length > 0 ? [{ kind: 'refund' as const, refundId: refunds[rnd(refunds.length)]!, txHash: hash('8', seq) }] : []),
      ];
      if (entries.length > 0) apply({ kind: 'chainEvents', at, toBlock: seq, entries });
      else apply({ kind: 'expire', at });
    }
  }
  return entries;
}

/** The entries cut into batches of random sizes, each cut into one to three groups. */
export function randomBatches(entries: readonly ProjectedEntry[], seed: number, maxBatch: number): ProjectedEntry[][][] {
  const rnd = random(seed);
  const batches: ProjectedEntry[][][] = [];
  for (let i = 0; i < entries.length; ) {
    const batch = entries.slice(i, i + 1 + rnd(maxBatch));
    i += batch.length;
    const groups: ProjectedEntry[][] = [];
    for (let j = 0; j < batch.length; ) {
      const group = batch.slice(j, j + 1 + rnd(Math.max(1, Math.ceil(batch.length / 2))));
      j += group.length;
      groups.push(group);
    }
    batches.push(groups);
  }
  return batches;
}

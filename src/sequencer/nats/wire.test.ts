// The NATS command wire: every command kind arrives as the journal's codec would replay it (bigints exact), results
// keep their bigints, and a refusal is thrown again on the gateway as the same error the sequencer threw.
import { describe, expect, it } from 'vitest';
import type { Command, MarketRef, NewOrder } from '../../engine/types.js';
import { DomainError } from '../../engine/errors.js';
import { ExchangeError } from '../../protocol/errors.js';
import { decodeReply, decodeRequest, encodeReply, encodeRequest, replyOfError, resultOfReply } from './wire.js';

const A = '0x00000000000000000000000000000000000000A1';
const B = '0x00000000000000000000000000000000000000B1';
const T = '0x00000000000000000000000000000000000000C1';
const H = (n: number) => '0x' + n.toString(16).padStart(64, '0');
const BIG = (1n << 255n) + 12_345n;
const market: MarketRef = { marketHash: H(1), exchangeEventId: 'ev1', tradeable: true, liveEnabled: false, legs: [H(2), H(3)] };
const order: NewOrder = {
  orderHash: H(9),
  marketHash: H(1),
  maker: A,
  baseToken: T,
  executor: B,
  totalBetSize: BIG,
  percentageOdds: 505n * 10n ** 17n,
  expiry: 2_000_000_000,
  apiExpiry: 0,
  salt: '77',
  isMakerBettingOutcomeOne: true,
  signature: '0x' + 'ab'.repeat(65),
  persistence: 'PERSIST',
};

/** One command of each kind: the type requires every kind, so a new one cannot be left out. */
const EXAMPLES: { [K in Command['kind']]: Extract<Command, { kind: K }> } = {
  faucet: { kind: 'faucet', at: 1, address: A, amount: BIG },
  transfer: { kind: 'transfer', at: 2, from: A, to: B, amount: 7n },
  postOrders: { kind: 'postOrders', at: 3, orders: [order], markets: [market] },
  fill: {
    kind: 'fill',
    at: 4,
    fillHash: H(10),
    market,
    taker: B,
    baseToken: T,
    isTakerBettingOutcomeOne: false,
    stakeWei: BIG,
    desiredOdds: 48n * 10n ** 18n,
    oddsSlippage: 3,
    fillSalt: '99',
    signed: { market: H(1), baseToken: T, stakeWei: BIG, desiredOdds: 1n, oddsSlippage: 3, takerSig: '0x01' },
    fillOrKill: true,
    minStakeWei: 5n,
    cashOut: { feeBps: 100, feeAccount: A, affiliateShareBps: 10 },
  },
  confirmFill: { kind: 'confirmFill', at: 5, fillHash: H(10), chain: { executed: false, txHash: H(11), reason: 'reverted' } },
  fillAttempt: { kind: 'fillAttempt', at: 6, fillHashes: [H(10)], txHash: H(11) },
  chainEvents: { kind: 'chainEvents', at: 7, toBlock: 8, entries: [{ kind: 'wallet', address: A, delta: -BIG, allowanceSpent: BIG }] },
  cancelOrders: { kind: 'cancelOrders', at: 8, maker: A, salt: H(12), timestamp: 9, orderHashes: [H(9)] },
  cancelEvent: { kind: 'cancelEvent', at: 9, maker: A, salt: H(13), timestamp: 9, exchangeEventId: 'ev1' },
  cancelAll: { kind: 'cancelAll', at: 10, maker: A, salt: H(14), timestamp: 9 },
  replaceOrders: { kind: 'replaceOrders', at: 11, maker: A, salt: H(15), timestamp: 9, orderHashes: [H(9)], orders: [{ ...order, orderHash: H(16) }], markets: [market] },
  heartbeat: { kind: 'heartbeat', at: 12, requestor: A, timeoutSeconds: 30 },
  expire: { kind: 'expire', at: 13 },
  reportMarkets: {
    kind: 'reportMarkets',
    at: 14,
    reports: [{ marketHash: H(1), outcome: 1, teamOneScore: 2, teamTwoScore: 0 }],
    suspend: [H(4)],
    finishedFixture: { exchangeEventId: 'ev1', status: 3 },
    fees: { bpsByMarket: { [H(1)]: 200 }, account: A, affiliateShareBps: 5 },
  },
  setMarketStatus: { kind: 'setMarketStatus', at: 15, marketHashes: [H(1)], status: 'SUSPENDED' },
  setFixtureStatus: { kind: 'setFixtureStatus', at: 16, exchangeEventId: 'ev1', status: 2, inPlay: true, closedInPlay: [H(1)], lapseInPlay: [H(2)] },
  cancelMarketOrders: { kind: 'cancelMarketOrders', at: 17, marketHashes: [H(1)] },
  liftRestriction: { kind: 'liftRestriction', at: 18, address: A },
};

describe('the NATS command wire', () => {
  it.each(Object.values(EXAMPLES).map((cmd) => [cmd.kind, cmd] as const))('carries a %s command exactly', (_kind, cmd) => {
    const text = encodeRequest({ id: 'req-1', command: cmd });
    expect(decodeRequest(text)).toStrictEqual({ id: 'req-1', command: cmd });
  });

  it('carries results with their bigints and the journal position', () => {
    const result = { kind: 'fill', fill: { fillHash: H(10), isPartialFill: true, totalFilled: BIG, averageOdds: 52n * 10n ** 18n } };
    const reply = decodeReply(encodeReply({ ok: true, result, position: 41 }));
    expect(reply).toStrictEqual({ ok: true, result, position: 41 });
    expect(resultOfReply(reply)).toStrictEqual(result);
  });

  it('throws a refusal again as the error the sequencer threw: class, errorCode, message and details', () => {
    const thrown = (err: unknown) => {
      try {
        resultOfReply(decodeReply(encodeReply(replyOfError(err))));
      } catch (e) {
        return e;
      }
      throw new Error('no error thrown');
    };
    const domain = thrown(new DomainError('FILL_ALREADY_SUBMITTED', 'seen before'));
    expect(domain).toBeInstanceOf(DomainError);
    expect(domain).toMatchObject({ errorCode: 'FILL_ALREADY_SUBMITTED', message: 'seen before' });
    const other = thrown(new ExchangeError('CHAIN_BACKLOG', '5 fills wait', [{ field: 'x', rule: 'z', message: 'y' }]));
    expect(other).toBeInstanceOf(ExchangeError);
    expect(other).not.toBeInstanceOf(DomainError);
    expect(other).toMatchObject({ errorCode: 'CHAIN_BACKLOG', message: '5 fills wait', details: [{ field: 'x', rule: 'z', message: 'y' }] });
    // Not a catalogued refusal: its message and code, so the gateway maps it as the sequencer's process would.
    const lost = thrown(Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' }));
    expect(lost).not.toBeInstanceOf(ExchangeError);
    expect(lost).toMatchObject({ message: 'Connection terminated unexpectedly', code: 'ECONNRESET' });
  });
});

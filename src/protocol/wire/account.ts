// Response data of a bettor's positions and funds statement (GET /positions, GET /account/statement).
import { Type } from '@sinclair/typebox';
import { IsoDate } from './envelope.js';

const wei = (description: string) => Type.String({ pattern: '^[0-9]+$', description: `base-token wei, decimal string: ${description}` });

const SignedWei = Type.String({ pattern: '^-?[0-9]+$', description: 'base-token wei, decimal string, negative when funds left' });

export const Position = Type.Object({
  marketHash: Type.String({ description: 'the market the bets settle on (a leg market for quarter-line bets)' }),
  exchangeEventId: Type.String(),
  baseToken: Type.String(),
  stakeOutcomeOne: wei('confirmed stakes on outcome one'),
  stakeOutcomeTwo: wei('confirmed stakes on outcome two'),
  pendingStake: wei('stakes of fills still waiting for the chain (in no other figure)'),
  payoutIfOutcomeOne: wei('what the confirmed trades pay if outcome one wins'),
  payoutIfOutcomeTwo: wei('what the confirmed trades pay if outcome two wins'),
  payoutIfVoid: wei('what the confirmed trades pay if the market is void (the stakes)'),
  escrow: wei('held in escrow for the position: stakes less refunds and cash outs; 0 once settled'),
  refunds: wei('capital-efficiency refunds paid from this position'),
  cashedOut: wei(
    'additive: what cash outs of this position paid at once (before their fee): what it was owed in every result; ' +
      'settlement pays the rest',
  ),
  cashOutFees: wei('additive: the cash-out fees taken from those payments'),
  settled: Type.Boolean(),
  outcome: Type.Optional(Type.Integer({ description: 'settled only: 0 void, 1 outcome one, 2 outcome two' })),
  payout: Type.Optional(wei('settled only: what the position paid in all, refunds included, before the commission')),
  fees: Type.Optional(wei('settled only: the commission taken on the position\'s winnings')),
  settledProfit: Type.Optional(
    Type.String({ pattern: '^-?[0-9]+$', description: 'settled only, base-token wei: payout less the commission, the cash-out fees and the stakes' }),
  ),
  lastTradeTime: IsoDate,
});

export const PositionsPage = Type.Object({
  positions: Type.Array(Position, { description: 'one per market the bettor traded (failed fills excluded), the last traded first' }),
  count: Type.Integer({ description: 'markets in all' }),
});

export const StatementEntry = Type.Object({
  id: Type.Integer({ description: 'increasing with time across all wallets' }),
  kind: Type.Union(
    [Type.Literal('deposit'), Type.Literal('withdrawal'), Type.Literal('stake'), Type.Literal('refund'), Type.Literal('cashout'), Type.Literal('payout'), Type.Literal('fee')],
    {
      description:
        'stake: a confirmed trade\'s stake moved to escrow; refund: a capital-efficiency refund; cashout: what a cash out ' +
        'paid at once when its hedge fill executed, before the cash-out fee; payout: a settled ' +
        'position\'s payout (or a late trade\'s) before the commission; fee: the commission settlement took on its winnings, or a cash-out fee; deposit or withdrawal: any other change of the balance (faucet, demo ' +
        'funds, transfers, token movements on chain)',
    },
  ),
  amount: SignedWei,
  balance: wei('the wallet balance after this entry, as GET /balances/:address shows it'),
  marketHash: Type.Optional(Type.String()),
  tradeId: Type.Optional(Type.String()),
  refundId: Type.Optional(Type.Integer()),
  time: IsoDate,
});

export const StatementPage = Type.Object({
  entries: Type.Array(StatementEntry),
  count: Type.Integer({ description: 'entries in all' }),
});

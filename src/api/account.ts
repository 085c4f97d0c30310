// GET /positions and GET /account/statement: a bettor's positions per market and every movement of its funds, read
// from the read side (the trades, refunds and statement entries each commit projected), never from the engine.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import type { ReadModels } from '../store/ports.js';

import { ok } from './envelope.js';
import { Address } from './params.js';
import { checksumAddress } from '../protocol/address.js';
import { isoTime } from '../protocol/iso-time.js';
import { responses } from './schemas/envelope.js';
import { PositionsPage, StatementPage, type Position, type StatementEntry } from './schemas/account.js';
import type { Position as PositionRecord, StatementEntry as EntryRecord } from '../store/ports.js';

export const ACCOUNT_MAX_PER_PAGE = 500;

const Paging = {
  page: Type.Integer({ minimum: 0, maximum: 100_000, default: 0 }),
  perPage: Type.Integer({ minimum: 1, maximum: ACCOUNT_MAX_PER_PAGE, default: 100 }),
};

export interface AccountRouteDeps {
  readModels: Pick<ReadModels, 'positions' | 'statement'>;
}

function positionToRest(p: PositionRecord): Static<typeof Position> {
  return {
    marketHash: p.marketHash,
    exchangeEventId: p.exchangeEventId,
    baseToken: p.baseToken,
    stakeOutcomeOne: p.stakeOutcomeOne.toString(),
    stakeOutcomeTwo: p.stakeOutcomeTwo.toString(),
    pendingStake: p.pendingStake.toString(),
    payoutIfOutcomeOne: p.payoutIfOutcomeOne.toString(),
    payoutIfOutcomeTwo: p.payoutIfOutcomeTwo.toString(),
    payoutIfVoid: p.payoutIfVoid.toString(),
    escrow: p.escrow.toString(),
    refunds: p.refunds.toString(),
    cashedOut: p.cashedOut.toString(),
    cashOutFees: p.cashOutFees.toString(),
    settled: p.settled,
    ...(p.outcome !== undefined ? { outcome: p.outcome } : {}),
    ...(p.payout !== undefined ? { payout: p.payout.toString() } : {}),
    ...(p.fees !== undefined ? { fees: p.fees.toString() } : {}),
    ...(p.settledProfit !== undefined ? { settledProfit: p.settledProfit.toString() } : {}),
    lastTradeTime: isoTime(p.lastTradeTime),
  };
}

function entryToRest(e: EntryRecord): Static<typeof StatementEntry> {
  return {
    id: e.id,
    kind: e.kind,
    amount: e.amount.toString(),
    balance: e.balance.toString(),
    ...(e.marketHash !== undefined ? { marketHash: e.marketHash } : {}),
    ...(e.tradeId !== undefined ? { tradeId: e.tradeId } : {}),
    ...(e.refundId !== undefined ? { refundId: e.refundId } : {}),
    time: isoTime(e.at),
  };
}

export const accountRoutes: FastifyPluginAsyncTypebox<AccountRouteDeps> = async (app, { readModels }) => {
  app.get(
    '/positions',
    {
      schema: {
        tags: ['trades'],
        description:
          'A bettor\'s positions, one per market it traded, the last traded first: confirmed stakes per outcome, what ' +
          'each outcome or a void would pay, escrow, refunds, and once settled the outcome, payout and profit (payout ' +
          'less stakes). Amounts in base-token wei.',
        querystring: Type.Object({ bettor: Address, ...Paging }),
        response: responses(PositionsPage),
      },
    },
    async (request) => {
      const q = request.query;
      const { positions, count } = await readModels.positions.page(checksumAddress(q.bettor), q);
      return ok({ positions: positions.map(positionToRest), count });
    },
  );

  app.get(
    '/account/statement',
    {
      schema: {
        tags: ['trades'],
        description:
          'Every movement of a wallet\'s balance with the balance after it: deposits (faucet, demo funds, transfers and ' +
          'token movements in), withdrawals, stakes moved to escrow, refunds and payouts. The last entry\'s balance is ' +
          'the balance GET /balances/:address shows. Oldest first with sortAsc=true, newest first by default.',
        querystring: Type.Object({ bettor: Address, sortAsc: Type.Boolean({ default: false }), ...Paging }),
        response: responses(StatementPage),
      },
    },
    async (request) => {
      const q = request.query;
      const { entries, count } = await readModels.statement.page(checksumAddress(q.bettor), q.sortAsc, q);
      return ok({ entries: entries.map(entryToRest), count });
    },
  );
};

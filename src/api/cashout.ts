// GET /cashout/quote (public): what a bettor's open position in a market is worth now, and the hedge fill to sign to
// take it (its side, stake and worst odds), with the cash-out fee (ODDEX_CASHOUT_FEE_BPS of the value).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Config } from '../config.js';
import type { SequencerPort } from '../sequencer/port.js';
import { checksumAddress } from '../protocol/address.js';
import { cashOutFee, chargedFees } from '../engine/fees.js';
import { ExchangeError } from '../protocol/errors.js';
import { ok } from './envelope.js';
import { Address, Hash } from './params.js';
import { responses } from './schemas/envelope.js';
import { CashOutQuote } from './schemas/trading.js';

export interface CashOutDeps {
  /** The live engine is read through the service: a failed commit replaces it. */
  trading: Pick<SequencerPort, 'liveEngine'>;
  config: Pick<Config, 'fees' | 'takerMinimum'>;
  now: () => number;
}

export const cashOutRoutes: FastifyPluginAsyncTypebox<CashOutDeps> = async (app, deps) => {
  const description =
    'The hedge that makes the bettor\'s confirmed position in the market pay the same whichever outcome wins, priced ' +
    'against the book now (best odds first, the bettor\'s own orders skipped): sign a fill with its ' +
    'isTakerBettingOutcomeOne, stakeWei and desiredOdds. amount is what the hedged position is then worth (what it is ' +
    'owed whatever the result, less the hedge stake) after fee, the cash-out fee (cashoutFee basis points of the ' +
    'value); paidNow what such a cash out pays at once when it confirms (what the hedged position is owed in every ' +
    'result, a void included, after fee; the rest at settlement). Take it by signing the fill with cashOutTarget = the ' +
    'market hash (POST /orders/fill/v2). Wei strings. 404 NO_POSITION without a position, 409 CASHOUT_AFTER_REFUND once capital-efficiency ' +
    'refunds were paid on it, 409 NOTHING_TO_CASH_OUT when it is already flat, 409 CASHOUT_PENDING while a cash out of ' +
    'it waits for the chain, 400 INSUFFICIENT_SPACE when the book ' +
    'cannot hedge it all (with partial=true: none of it), 400 TAKER_AMOUNT_TOO_LOW when the hedge stake is below the taker minimum (a fill that small is ' +
    'refused: the position waits for settlement). partial=true (additive; default false): when the book covers only ' +
    'part of the hedge, the quote for that part instead of INSUFFICIENT_SPACE, with partial: true and uncoveredWei, ' +
    'the return the hedge still lacks (what the position pays more on one outcome than on the other once the part is ' +
    'cashed out; a later quote prices it). Its figures are those of a cash out filling exactly its stakeWei at its ' +
    'desiredOdds, as for a whole quote; a book covering the whole hedge answers the whole quote, without those fields.';
  app.get(
    '/cashout/quote',
    {
      schema: {
        tags: ['trading'],
        description,
        querystring: Type.Object({
          bettor: Address,
          marketHash: Hash,
          partial: Type.Optional(
            Type.Boolean({ default: false, description: 'true: quote the part of the hedge the book covers when it cannot cover it all (true or false)' }),
          ),
        }),
        response: responses(CashOutQuote),
      },
    },
    async (request) => {
      const marketHash = request.query.marketHash.toLowerCase();
      const quote = deps.trading.liveEngine().cashOutQuote(marketHash, checksumAddress(request.query.bettor), deps.now(), request.query.partial === true);
      if (quote.stakeWei < deps.config.takerMinimum) {
        throw new ExchangeError('TAKER_AMOUNT_TOO_LOW', `the hedge stake ${quote.stakeWei} is below the taker minimum ${deps.config.takerMinimum}`);
      }
      const fee = cashOutFee(quote.value, quote.paidNow, chargedFees(deps.config.fees).cashoutBps);
      return ok({
        marketHash,
        isTakerBettingOutcomeOne: quote.isTakerBettingOutcomeOne,
        stakeWei: quote.stakeWei.toString(),
        desiredOdds: quote.desiredOdds.toString(),
        amount: (quote.value - fee).toString(),
        fee: fee.toString(),
        paidNow: (quote.paidNow - fee).toString(),
        ...(quote.uncovered !== undefined ? { partial: true as const, uncoveredWei: quote.uncovered.toString() } : {}),
      });
    },
  );
};

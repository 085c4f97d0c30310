// POST /orders/fill/v2: a signed taker fill, matched after the betting delay.
import type { FastifyInstance } from 'fastify';
import { setTimeout as sleep } from 'node:timers/promises';
import { Type, type Static } from '@sinclair/typebox';
import type { AppContext } from '../context.js';
import type { MarketRecord } from '../catalogue/catalogue.js';
import { ApiError, badRequest, ok } from './envelope.js';
import { Address, Hash } from './params.js';
import {
  parseOdds,
  parseSalt,
  parseWei,
  requireBaseToken,
  requireMarket,
  requireNotClosedInPlay,
  requireSigner,
  SIGNATURE_PATTERN,
} from './trading-input.js';
import { checksumAddress } from '../protocol/address.js';
import type { VerifyJob } from '../verify/jobs.js';
import { submitToEngine } from './engine-errors.js';
import { responses } from './schemas/envelope.js';
import { FillResult } from './schemas/trading.js';

const FillBody = Type.Object(
  {
    market: Hash,
    baseToken: Address,
    isTakerBettingOutcomeOne: Type.Boolean(),
    stakeWei: Type.String({ maxLength: 80 }),
    desiredOdds: Type.String({ maxLength: 80 }),
    oddsSlippage: Type.Integer(),
    fillSalt: Type.String({ maxLength: 80 }),
    taker: Address,
    takerSig: Type.String({ pattern: SIGNATURE_PATTERN }),
  },
  { additionalProperties: false },
);

/** Pre-game delay, or in play the league's, else the sport's, else the default. */
export function bettingDelayMs(ctx: AppContext, market: MarketRecord): number {
  const d = ctx.config.bettingDelay;
  if (!ctx.catalogue.isInPlay(market)) return d.preGameMs;
  return d.inPlayByLeagueMs[String(market.leagueId)] ?? d.inPlayBySportMs[market.sportLabel.toLowerCase()] ?? d.inPlayDefaultMs;
}

export function registerFillRoutes(app: FastifyInstance, ctx: AppContext): void {
  /** Salts of fills waiting out their betting delay; the engine remembers them once matched. */
  const inFlightSalts = new Set<string>();

  const description =
    'Fills maker orders as a taker after the betting delay (pre-game, or in play per league, sport or default). ' +
    'A market with liveEnabled false takes no fills while its fixture is live (status 2): 400 MARKET_NOT_LIVE_ENABLED, ' +
    'also when the fixture goes live during the delay.';
  app.post('/orders/fill/v2', { schema: { tags: ['orders'], description, body: FillBody, response: responses(FillResult) } }, async (request) => {
    const b = request.body as Static<typeof FillBody>;
    const stakeWei = parseWei(b.stakeWei, 'stakeWei', 'INVALID_AMOUNT', { positive: true });
    if (stakeWei < ctx.config.takerMinimum) {
      throw badRequest('TAKER_AMOUNT_TOO_LOW', `stakeWei is below the taker minimum ${ctx.config.takerMinimum}`);
    }
    const desiredOdds = parseOdds(b.desiredOdds, 'desiredOdds');
    if (b.oddsSlippage < 0 || b.oddsSlippage > 100) {
      throw badRequest('INVALID_ODDS_SLIPPAGE', 'oddsSlippage must be an integer from 0 to 100');
    }
    const fillSalt = parseSalt(b.fillSalt, 'fillSalt');
    requireBaseToken(ctx, b.baseToken);
    const market = requireMarket(ctx, b.market);

    const c = ctx.config;
    const job: VerifyJob = {
      kind: 'fill',
      domain: { name: c.domainNames.fill, version: c.domainVersion, chainId: c.chainId, verifyingContract: c.eip712FillHasher },
      fill: {
        market: b.market,
        baseToken: b.baseToken,
        stakeWei,
        desiredOdds,
        oddsSlippage: b.oddsSlippage,
        isTakerBettingOutcomeOne: b.isTakerBettingOutcomeOne,
        fillSalt,
      },
      signature: b.takerSig,
    };
    // The betting delay runs after this: a taker's fills wait the same delay, so they still match in arrival order.
    const digest = await ctx.verifier.inClientOrder([b.taker], [job], ([verified]) => {
      requireSigner(verified!.signer, b.taker, 'TAKER_SIGNATURE_MISMATCH', 'takerSig: fill');
      return verified!.hash;
    });
    if (market.status !== 'ACTIVE') throw badRequest('MARKET_NOT_TRADEABLE', 'the market is not open for trading');
    requireNotClosedInPlay(ctx, market);

    if (ctx.trading.chain.backlog >= c.chainSubmit.maxBacklog) {
      throw new ApiError(503, 'CHAIN_BACKLOG', `${c.chainSubmit.maxBacklog} fills are waiting for the settlement chain; try again later`);
    }
    const saltKey = fillSalt.toString();
    if (inFlightSalts.has(saltKey)) throw new ApiError(409, 'FILL_ALREADY_SUBMITTED', 'this fillSalt was already used');
    inFlightSalts.add(saltKey);
    try {
      const delay = bettingDelayMs(ctx, market);
      if (delay > 0) await sleep(delay);
      // Re-read the market: it may have been reported or suspended during the delay.
      const current = ctx.catalogue.getMarket(market.marketHash) ?? market;
      // The fixture may have gone live during the delay.
      requireNotClosedInPlay(ctx, current);
      const result = await submitToEngine(ctx, {
        kind: 'fill',
        at: ctx.now(),
        fillHash: digest,
        market: ctx.trading.marketRef(current),
        taker: checksumAddress(b.taker),
        baseToken: checksumAddress(b.baseToken),
        isTakerBettingOutcomeOne: b.isTakerBettingOutcomeOne,
        stakeWei,
        desiredOdds,
        oddsSlippage: b.oddsSlippage,
        fillSalt: saltKey,
        // An on-chain executor must present the taker's signature over exactly these strings.
        ...(c.chain === 'evm'
          ? { signed: { market: b.market, baseToken: b.baseToken, stakeWei, desiredOdds, oddsSlippage: b.oddsSlippage, takerSig: b.takerSig } }
          : {}),
      });
      return ok({
        fillHash: result.fill.fillHash,
        isPartialFill: result.fill.isPartialFill,
        totalFilled: result.fill.totalFilled.toString(),
        averageOdds: result.fill.averageOdds.toString(),
      });
    } finally {
      inFlightSalts.delete(saltKey);
    }
  });
}

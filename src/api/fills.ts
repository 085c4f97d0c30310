// POST /orders/fill/v2: a signed taker fill, matched after the betting delay.
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Config } from '../config.js';
import type { Catalogue, MarketRecord } from '../catalogue/catalogue.js';
import type { SequencerPort } from '../sequencer/port.js';
import { marketRefOf } from '../catalogue/market-ref.js';
import type { SignatureVerifier } from '../verify/verifier.js';
import { ok } from './envelope.js';
import { ExchangeError, invalidField } from '../protocol/errors.js';
import { bettingDelayFor } from '../protocol/betting-delay.js';
import { Address, Hash, HASH_PATTERN } from './params.js';
import { ZERO_BYTES32 } from '../protocol/eip712.js';
import { chargedFees } from '../engine/fees.js';
import {
  parseOdds,
  parseSalt,
  parseWei,
  requireBaseToken,
  requireMarket,
  requireParlayFillable,
  requireParlayLegsOpen,
  requireNotClosedInPlay,
  requireSigner,
  SIGNATURE_PATTERN,
} from './trading-input.js';
import { checksumAddress } from '../protocol/address.js';
import { canonicalSignature } from '../protocol/signatures.js';
import type { VerifyJob } from '../verify/jobs.js';
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
    cashOutTarget: Type.Optional(
      Type.String({
        pattern: HASH_PATTERN,
        description:
          'Signed (FillObject.cashOutTarget; absent signs the zero hash). The zero hash: an ordinary fill. The market hash: a ' +
          'cash out, the hedge of the taker\'s confirmed position in the market (GET /cashout/quote gives the side, stake and ' +
          'odds); it is paid at once, when the fill confirms, what the position is owed in every result less the cash-out ' +
          'fee. Refused: any other value (400 INVALID_CASHOUT_TARGET), no position (404 NO_POSITION), a position refunded ' +
          'early (409 CASHOUT_AFTER_REFUND), a flat one (409 NOTHING_TO_CASH_OUT), the other side (400 CASHOUT_WRONG_SIDE), ' +
          'a hedge larger than the position needs (400 CASHOUT_STAKE_TOO_HIGH), another cash out of it still pending ' +
          '(409 CASHOUT_PENDING). With ODDEX_CHAIN=evm the settlement contract performs the cash out and pays it as the ' +
          'ledger does, to the wei.',
      }),
    ),
    // Unsigned: they only narrow what the signature allows, so a taker may add them to any signed fill.
    fillOrKill: Type.Optional(
      Type.Boolean({
        description:
          'Not signed. true: fill the whole stakeWei or nothing; a fill the book cannot cover entirely is refused with ' +
          '400 FILL_OR_KILL_NOT_FILLED and changes nothing.',
      }),
    ),
    minStakeWei: Type.Optional(
      Type.String({
        maxLength: 80,
        description:
          'Not signed. Base-token wei, decimal string, from 1 to stakeWei (else 400 INVALID_MIN_STAKE); it may be below ' +
          'the taker minimum, which bounds stakeWei, not what matches. A fill that would match less taker stake is ' +
          'refused with 400 FILL_BELOW_MIN_STAKE and changes nothing.',
      }),
    ),
  },
  { additionalProperties: false },
);

export interface FillRouteDeps {
  config: Pick<
    Config,
    'takerMinimum' | 'fees' | 'baseTokenAddress' | 'bettingDelay' | 'domainNames' | 'domainVersion' | 'chainId' | 'eip712FillHasher' | 'chain'
  >;
  catalogue: Pick<Catalogue, 'getMarket' | 'unloaded' | 'loadMarkets' | 'isInPlay' | 'isClosedInPlay'>;
  trading: Pick<SequencerPort, 'submit'>;
  verifier: Pick<SignatureVerifier, 'inClientOrder'>;
  now: () => number;
}

/** The delay a bet on this market waits now (pre-game or in play). */
export function bettingDelayMs(deps: { config: Pick<Config, 'bettingDelay'>; catalogue: Pick<Catalogue, 'isInPlay'> }, market: MarketRecord): number {
  return bettingDelayFor(deps.config.bettingDelay, market, deps.catalogue.isInPlay(market));
}

export const fillRoutes: FastifyPluginAsyncTypebox<FillRouteDeps> = async (app, deps) => {
  const { config: c, catalogue, trading, verifier, now } = deps;
  /** Salts of fills waiting out their betting delay; the engine remembers them once matched. */
  const inFlightSalts = new Set<string>();

  const description =
    'Fills maker orders as a taker after the betting delay (pre-game, or in play per league, sport or default). ' +
    'A market with liveEnabled false takes no fills while its fixture is live (status 2): 400 MARKET_NOT_LIVE_ENABLED, ' +
    'also when the fixture goes live during the delay. fillOrKill and minStakeWei (not signed) refuse a fill that would ' +
    'match less than the whole stake or less than minStakeWei; a refused fill changes nothing.';
  app.post('/orders/fill/v2', { schema: { tags: ['orders'], description, body: FillBody, response: responses(FillResult) } }, async (request) => {
    const b = request.body;
    const stakeWei = parseWei(b.stakeWei, 'stakeWei', 'INVALID_AMOUNT', { positive: true });
    if (stakeWei < c.takerMinimum) {
      throw invalidField('stakeWei', 'minimum', `stakeWei is below the taker minimum ${c.takerMinimum}`, 'TAKER_AMOUNT_TOO_LOW');
    }
    const minStakeWei = b.minStakeWei === undefined ? undefined : parseWei(b.minStakeWei, 'minStakeWei', 'INVALID_MIN_STAKE', { positive: true });
    if (minStakeWei !== undefined && minStakeWei > stakeWei) {
      throw invalidField('minStakeWei', 'maximum', 'minStakeWei must not exceed stakeWei: no fill could meet it', 'INVALID_MIN_STAKE');
    }
    const desiredOdds = parseOdds(b.desiredOdds, 'desiredOdds');
    if (b.oddsSlippage < 0 || b.oddsSlippage > 100) {
      throw invalidField('oddsSlippage', b.oddsSlippage < 0 ? 'minimum' : 'maximum', 'oddsSlippage must be an integer from 0 to 100', 'INVALID_ODDS_SLIPPAGE');
    }
    const fillSalt = parseSalt(b.fillSalt, 'fillSalt');
    requireBaseToken(c, b.baseToken);
    // A settled market of a database server is loaded first, to be refused as on any store (an open one waits for nothing).
    if (catalogue.unloaded([b.market]).length > 0) await catalogue.loadMarkets([b.market]);
    const market = requireMarket(catalogue, b.market);
    requireParlayFillable(market, now());
    requireParlayLegsOpen(catalogue, market);
    // The zero hash is an ordinary fill (signed as when absent); the fill's own market hash is a cash out of it.
    const cashOut = b.cashOutTarget !== undefined && b.cashOutTarget.toLowerCase() !== ZERO_BYTES32;
    if (cashOut && b.cashOutTarget!.toLowerCase() !== market.marketHash.toLowerCase()) {
      throw invalidField('cashOutTarget', 'enum', 'cashOutTarget must be the zero hash or the market hash of this fill', 'INVALID_CASHOUT_TARGET');
    }

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
        ...(b.cashOutTarget !== undefined ? { cashOutTarget: b.cashOutTarget } : {}),
      },
      signature: b.takerSig,
    };
    // The betting delay runs after this: a taker's fills wait the same delay, so they still match in arrival order.
    const digest = await verifier.inClientOrder([b.taker], [job], ([verified]) => {
      requireSigner(verified!.signer, b.taker, 'TAKER_SIGNATURE_MISMATCH', 'takerSig: fill');
      return verified!.hash;
    });
    if (market.status !== 'ACTIVE') throw new ExchangeError('MARKET_NOT_TRADEABLE');
    requireNotClosedInPlay(catalogue, market);

    const saltKey = fillSalt.toString();
    if (inFlightSalts.has(saltKey)) throw new ExchangeError('FILL_ALREADY_SUBMITTED');
    inFlightSalts.add(saltKey);
    try {
      const delay = bettingDelayMs(deps, market);
      if (delay > 0) await sleep(delay);
      // Re-read the market: it may have been reported or suspended during the delay.
      const current = catalogue.getMarket(market.marketHash) ?? market;
      // The fixture may have gone live during the delay, or the parlay's fill window passed.
      requireNotClosedInPlay(catalogue, current);
      requireParlayFillable(current, now());
      requireParlayLegsOpen(catalogue, current);
      const result = await trading.submit({
        kind: 'fill',
        at: now(),
        fillHash: digest,
        market: marketRefOf(catalogue, current),
        taker: checksumAddress(b.taker),
        baseToken: checksumAddress(b.baseToken),
        isTakerBettingOutcomeOne: b.isTakerBettingOutcomeOne,
        stakeWei,
        desiredOdds,
        oddsSlippage: b.oddsSlippage,
        fillSalt: saltKey,
        // Set only when asked for, so an ordinary fill journals as it always did.
        ...(b.fillOrKill === true ? { fillOrKill: true as const } : {}),
        ...(minStakeWei !== undefined ? { minStakeWei } : {}),
        ...(cashOut ? { cashOut: { feeBps: chargedFees(c.fees).cashoutBps, feeAccount: checksumAddress(c.fees.account), affiliateShareBps: c.fees.affiliateShareBps } } : {}),
        // An on-chain executor must present the taker's signature over exactly these strings.
        ...(c.chain === 'evm'
          ? { signed: { market: b.market, baseToken: b.baseToken, stakeWei, desiredOdds, oddsSlippage: b.oddsSlippage, takerSig: canonicalSignature(b.takerSig) } }
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
};

// GET /metadata: addresses, fees, minimums and signing parameters a client reads instead of hard-coding.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Config } from '../config.js';
import type { Catalogue } from '../catalogue/catalogue.js';
import { ok } from './envelope.js';
import { checksumAddress } from '../protocol/address.js';
import { BRIDGE_FEE_NAMES } from '../config.js';
import type { MarketRecord } from '../catalogue/model.js';
import { recordResponses } from './schemas/envelope.js';
import { Metadata } from './schemas/metadata.js';
import { demoFundsOffer } from './demo-funds.js';
import { chargedFees } from '../engine/fees.js';

/** A rate in basis points as /metadata's 10^20-scaled fraction (500 bps = 5% = 5 * 10^18). */
const scaledRate = (bps: number) => (BigInt(bps) * 10n ** 16n).toString();

/**
 * /metadata.oracleFees keys, as Oddex fills them: the commission on singles' and on parlays' net winnings, the cash-out
 * fee, and the affiliates' share of a fee.
 */
const feeRates = (f: Config['fees']) => ({
  '0': scaledRate(f.singlesBps),
  '1': scaledRate(f.parlaysBps),
  '2': scaledRate(f.cashoutBps),
  '3': scaledRate(f.affiliateShareBps),
});
const POPULAR_SPORTS = 5;

/** Ids ordered by how many active markets they carry (most first), ties by id. */
function byMarketCount(markets: readonly MarketRecord[], key: (m: MarketRecord) => number, ids: number[]): number[] {
  const counts = new Map<number, number>();
  for (const m of markets) counts.set(key(m), (counts.get(key(m)) ?? 0) + 1);
  return [...ids].sort((a, b) => (counts.get(b) ?? 0) - (counts.get(a) ?? 0) || a - b);
}

export interface MetadataDeps {
  config: Config;
  catalogue: Pick<Catalogue, 'activeMarkets' | 'sports' | 'leagues'>;
}

export function metadataOf({ config: c, catalogue }: MetadataDeps): Record<string, unknown> {
  const token = checksumAddress(c.baseTokenAddress);
  const active = catalogue.activeMarkets();
  const sportsWithMarkets = catalogue.sports().filter((s) => active.some((m) => m.sportId === s.sportId));
  const leagueOrderingBySport: Record<string, number[]> = {};
  for (const sport of catalogue.sports()) {
    const leagueIds = catalogue
      .leagues()
      .filter((l) => l.sportId === sport.sportId && l.active)
      .map((l) => l.leagueId);
    leagueOrderingBySport[sport.sportId] = byMarketCount(active, (m) => m.leagueId, leagueIds);
  }
  return {
    executorAddress: checksumAddress(c.executorAddress),
    oracleFees: { [token]: feeRates(chargedFees(c.fees)) },
    feeAccount: checksumAddress(c.fees.account),
    exchangeAffiliate: { address: checksumAddress(c.exchangeAffiliate), amount: c.exchangeAffiliateAmount.toString() },
    makerOrderMinimums: { [token]: c.makerMinimum.toString() },
    takerMinimums: { [token]: c.takerMinimum.toString() },
    addresses: { [c.chainId]: { [c.baseTokenSymbol]: token } },
    EIP712FillHasher: checksumAddress(c.eip712FillHasher),
    TokenTransferProxy: checksumAddress(c.tokenTransferProxy),
    oddsLadderStepSize: c.oddsLadderStepSize,
    ...Object.fromEntries(BRIDGE_FEE_NAMES.map((name) => [name, c.bridgeFees[name] ?? 0])),
    popularSports: byMarketCount(
      active,
      (m) => m.sportId,
      sportsWithMarkets.map((s) => s.sportId),
    ).slice(0, POPULAR_SPORTS),
    leagueOrderingBySport,
    cashoutFee: String(chargedFees(c.fees).cashoutBps),
    crosschainFees: { [c.chainId]: 0, ...c.crosschainFees },
    chainVersion: c.chainVersion,
    domainVersion: c.domainVersion,
    chainId: c.chainId,
    domainNames: { ...c.domainNames },
    bettingDelays: c.bettingDelay,
    demoFunds: demoFundsOffer(c),
  };
}

export const metadataRoutes: FastifyPluginAsyncTypebox<MetadataDeps> = async (app, deps) => {
  const description =
    'Addresses, fees, minimums and signing parameters. chainId and domainNames {fill, cancelV2, cancelEvent, ' +
    'cancelAll, parlayRequest} are additive: with domainVersion, EIP712FillHasher and executorAddress they are every value a client ' +
    'signs with. ODDEX_COMPAT=sx sets them to the public exchange\'s values (sandboxes only: its executor is shared). ' +
    'oracleFees carries Oddex\'s fee rates as 10^20-scaled fractions: key 0 the commission on a bettor\'s net winnings ' +
    'per market on singles, 1 on parlays, 2 the cash-out fee, 3 the affiliate\'s share of a fee. feeAccount (additive) ' +
    'receives the fees; cashoutFee is the cash-out fee in basis points of the cash out\'s value. ' +
    'bettingDelays (additive) says how long a bet waits before it is matched, before kick-off and in play. ' +
    'demoFunds (additive) says whether POST /user/demo-funds grants test funds here. ' +
    'With ODDEX_CHAIN=evm every address, the chain id and the fill domain are the deployed contracts\'.';
  app.get('/metadata', { schema: { tags: ['metadata'], description, response: recordResponses(Metadata) } }, async () => ok(metadataOf(deps)));
};

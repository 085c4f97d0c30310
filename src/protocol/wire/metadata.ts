// Response data of GET /metadata (spec 4.9 plus the additive chainId, domainNames, bettingDelays and demoFunds).
import { Type, type TNumber } from '@sinclair/typebox';
import { Nullable, WeiString } from './envelope.js';

/** The bridge fee figures /metadata reports (numbers; the configuration sets them, 0 by default). */
export const BRIDGE_FEE_NAMES = [
  'bridgeFee',
  'depositBridgeFee',
  'withdrawalBridgeFee',
  'depositBridgeFeeEthereum',
  'minimumDepositAmountEthereum',
  'depositBridgeFeeArbitrum',
  'minimumDepositAmountArbitrum',
  'withdrawBridgeFeeArbitrum',
] as const;

const bridgeFees = Object.fromEntries(BRIDGE_FEE_NAMES.map((name) => [name, Type.Number()])) as Record<(typeof BRIDGE_FEE_NAMES)[number], TNumber>;

const StringMap = Type.Record(Type.String(), Type.String());

export const Metadata = Type.Object({
  executorAddress: Type.String(),
  oracleFees: Type.Record(Type.String(), StringMap, {
    description: 'token address, then keys 0-3, 10^20-scaled: 0 the commission on singles, 1 on parlays (of net winnings per market), 2 the cash-out fee, 3 the affiliate share of a fee',
  }),
  feeAccount: Type.String({ description: 'Additive: the address fees are paid to (its funds on GET /balances/:address)' }),
  exchangeAffiliate: Type.Object({ address: Type.String(), amount: Type.String() }),
  makerOrderMinimums: Type.Record(Type.String(), Type.String(), { description: 'token address to wei' }),
  takerMinimums: Type.Record(Type.String(), Type.String(), { description: 'token address to wei' }),
  addresses: Type.Record(Type.String(), StringMap, { description: 'chain id, then token symbol, then address' }),
  EIP712FillHasher: Type.String(),
  TokenTransferProxy: Type.String(),
  oddsLadderStepSize: Type.Integer(),
  ...bridgeFees,
  popularSports: Type.Array(Type.Integer()),
  leagueOrderingBySport: Type.Record(Type.String(), Type.Array(Type.Integer())),
  cashoutFee: Type.String({ description: 'basis points of a cash out\'s value' }),
  crosschainFees: Type.Record(Type.String(), Type.Number()),
  chainVersion: Type.String(),
  domainVersion: Type.String(),
  chainId: Type.Integer(),
  domainNames: Type.Object({ fill: Type.String(), cancelV2: Type.String(), cancelEvent: Type.String(), cancelAll: Type.String(), parlayRequest: Type.String() }),
  bettingDelays: Type.Object(
    {
      preGameMs: Type.Integer(),
      inPlayMs: Type.Integer(),
      inPlayBySportMs: Type.Record(Type.String(), Type.Integer(), { description: 'sport label in lower case to milliseconds' }),
      inPlayByLeagueMs: Type.Record(Type.String(), Type.Integer(), { description: 'league id to milliseconds' }),
    },
    {
      description:
        'Additive: how long POST /orders/fill/v2 waits before matching a bet. Before kick-off preGameMs; in play the ' +
        'league\'s figure, else the sport\'s, else inPlayMs.',
    },
  ),
  demoFunds: Nullable(
    Type.Object(
      {
        amount: WeiString,
        maxBalance: WeiString,
      },
      {
        description:
          'POST /user/demo-funds (demo mode, local ledger): amount is the wei of one grant; no grant lifts an address\'s ' +
          'balance plus escrow above maxBalance. null where it gives nothing.',
      },
    ),
  ),
});

// Response data of GET /metadata (spec 4.9 plus the additive chainId and domainNames).
import { Type } from '@sinclair/typebox';
import { BRIDGE_FEE_NAMES } from '../../config.js';

const StringMap = Type.Record(Type.String(), Type.String());

export const Metadata = Type.Object({
  executorAddress: Type.String(),
  oracleFees: Type.Record(Type.String(), StringMap, { description: 'token address, then keys 0-3, 10^20-scaled' }),
  exchangeAffiliate: Type.Object({ address: Type.String(), amount: Type.String() }),
  makerOrderMinimums: Type.Record(Type.String(), Type.String(), { description: 'token address to wei' }),
  takerMinimums: Type.Record(Type.String(), Type.String(), { description: 'token address to wei' }),
  addresses: Type.Record(Type.String(), StringMap, { description: 'chain id, then token symbol, then address' }),
  EIP712FillHasher: Type.String(),
  TokenTransferProxy: Type.String(),
  oddsLadderStepSize: Type.Integer(),
  ...Object.fromEntries(BRIDGE_FEE_NAMES.map((name) => [name, Type.Number()])),
  popularSports: Type.Array(Type.Integer()),
  leagueOrderingBySport: Type.Record(Type.String(), Type.Array(Type.Integer())),
  cashoutFee: Type.String(),
  crosschainFees: Type.Record(Type.String(), Type.Number()),
  chainVersion: Type.String(),
  domainVersion: Type.String(),
  chainId: Type.Integer(),
  domainNames: Type.Object({ fill: Type.String(), cancelV2: Type.String(), cancelEvent: Type.String(), cancelAll: Type.String() }),
});

// Typed calls of the public API, signing through the page's wallet. Reads `/metadata` once for the chain id,
// domain names, executor and base token, so nothing about the deployment is hard-coded.
import { encodePacked, keccak256, toHex, type Hex } from 'viem';
import { apiGet, apiPost } from './http';
import type {
  Balance,
  BestOddsEntry,
  CancelResult,
  FillResult,
  Fixture,
  League,
  Market,
  Metadata,
  Order,
  PostOrdersResult,
  RefundGroup,
  SearchHit,
  Sport,
  Trade,
} from './types';
import type { Wallet } from '../wallet/wallet';

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';
const ZERO_HASH = `0x${'0'.repeat(64)}` as Hex;

const FILL_TYPES = {
  Details: [
    { name: 'action', type: 'string' },
    { name: 'market', type: 'string' },
    { name: 'betting', type: 'string' },
    { name: 'stake', type: 'string' },
    { name: 'worstOdds', type: 'string' },
    { name: 'worstReturning', type: 'string' },
    { name: 'fills', type: 'FillObject' },
  ],
  FillObject: [
    { name: 'stakeWei', type: 'string' },
    { name: 'marketHash', type: 'string' },
    { name: 'baseToken', type: 'string' },
    { name: 'desiredOdds', type: 'string' },
    { name: 'oddsSlippage', type: 'uint256' },
    { name: 'isTakerBettingOutcomeOne', type: 'bool' },
    { name: 'fillSalt', type: 'uint256' },
    { name: 'beneficiary', type: 'address' },
    { name: 'beneficiaryType', type: 'uint8' },
    { name: 'cashOutTarget', type: 'bytes32' },
  ],
} as const;

/** A random 256-bit number (order salts, fill salts). */
function randomUint256(): bigint {
  return BigInt(toHex(crypto.getRandomValues(new Uint8Array(32))));
}

export interface FillInput {
  marketHash: string;
  isTakerBettingOutcomeOne: boolean;
  stakeWei: bigint;
  /** Worst acceptable taker odds (10^20 scale). */
  desiredOdds: bigint;
  /** Percent, 0..100. */
  oddsSlippage: number;
}

export interface OrderInput {
  marketHash: string;
  isMakerBettingOutcomeOne: boolean;
  totalBetSize: bigint;
  percentageOdds: bigint;
  /** Seconds the order stays valid. */
  lifetimeSeconds: number;
}

export class ExchangeApi {
  private metadataPromise: Promise<Metadata> | undefined;

  metadata(): Promise<Metadata> {
    this.metadataPromise ??= apiGet<Metadata>('/metadata').catch((err: unknown) => {
      this.metadataPromise = undefined;
      throw err;
    });
    return this.metadataPromise;
  }

  async baseToken(): Promise<Hex> {
    const m = await this.metadata();
    const token = m.addresses[String(m.chainId)]?.USDC;
    if (!token) throw new Error('metadata lists no base token for its chain');
    return token as Hex;
  }

  sports = () => apiGet<Sport[]>('/sports');
  leagues = (sportId?: number) => apiGet<League[]>('/leagues/active', { sportId });
  fixtures = (leagueId: number) => apiGet<Fixture[]>('/fixture/active', { leagueId });
  search = (query: string) => apiGet<SearchHit[]>('/search', { query });
  marketsOfEvent = (eventId: string) => apiGet<{ markets: Market[] }>('/markets/active', { eventId, pageSize: 100 }).then((d) => d.markets);
  findMarkets = (hashes: string[]) => apiGet<Market[]>('/markets/find', { marketHashes: hashes.join(',') });
  ordersOfMarket = (marketHash: string) => apiGet<Order[]>('/orders', { marketHashes: marketHash, perPage: 1000 });
  ordersOfMaker = (maker: string) => apiGet<Order[]>('/orders', { maker, perPage: 1000 });
  tradesOfMarket = (marketHash: string) => apiGet<{ trades: Trade[] }>('/trades', { marketHashes: marketHash, pageSize: 30 }).then((d) => d.trades);
  tradesOfBettor = (bettor: string) => apiGet<{ trades: Trade[] }>('/trades', { bettor, pageSize: 100 }).then((d) => d.trades);
  balance = (address: string) => apiGet<Balance>(`/balances/${address}`);
  refunds = (bettor: string) =>
    apiGet<{ results: RefundGroup[]; count: number }>('/trades/portfolio/refunds', { bettor, sortAsc: false, page: 0, perPage: 100 });

  async bestOdds(marketHashes: string[]): Promise<BestOddsEntry[]> {
    if (marketHashes.length === 0) return [];
    const baseToken = await this.baseToken();
    const out: BestOddsEntry[] = [];
    for (let i = 0; i < marketHashes.length; i += 20) {
      const chunk = marketHashes.slice(i, i + 20);
      const d = await apiGet<{ bestOdds: BestOddsEntry[] }>('/orders/odds/best', { marketHashes: chunk.join(','), baseToken });
      out.push(...d.bestOdds);
    }
    return out;
  }

  /** A realtime token for the wallet: it signs the sign-in text of POST /user/realtime-token/wallet. */
  async realtimeToken(wallet: Wallet): Promise<string> {
    const timestamp = Math.floor(Date.now() / 1000);
    const text = `Oddex realtime sign-in\naddress: ${wallet.address}\ntimestamp: ${timestamp}`;
    const signature = await wallet.signMessage(text);
    const d = await apiPost<{ token: string }>('/user/realtime-token/wallet', { address: wallet.address, timestamp, signature });
    return d.token;
  }

  async fill(wallet: Wallet, f: FillInput): Promise<FillResult> {
    const m = await this.metadata();
    const baseToken = await this.baseToken();
    const fillSalt = randomUint256();
    const takerSig = await wallet.signTypedData({
      domain: { name: m.domainNames.fill, version: m.domainVersion, chainId: m.chainId, verifyingContract: m.EIP712FillHasher as Hex },
      types: FILL_TYPES,
      primaryType: 'Details',
      message: {
        action: 'N/A',
        market: f.marketHash,
        betting: 'N/A',
        stake: 'N/A',
        worstOdds: 'N/A',
        worstReturning: 'N/A',
        fills: {
          stakeWei: f.stakeWei.toString(),
          marketHash: f.marketHash,
          baseToken,
          desiredOdds: f.desiredOdds.toString(),
          oddsSlippage: BigInt(f.oddsSlippage),
          isTakerBettingOutcomeOne: f.isTakerBettingOutcomeOne,
          fillSalt,
          beneficiary: ZERO_ADDRESS,
          beneficiaryType: 0,
          cashOutTarget: ZERO_HASH,
        },
      },
    });
    return apiPost<FillResult>('/orders/fill/v2', {
      market: f.marketHash,
      baseToken,
      isTakerBettingOutcomeOne: f.isTakerBettingOutcomeOne,
      stakeWei: f.stakeWei.toString(),
      desiredOdds: f.desiredOdds.toString(),
      oddsSlippage: f.oddsSlippage,
      fillSalt: fillSalt.toString(),
      taker: wallet.address,
      takerSig,
    });
  }

  /** Signs one maker order (personal_sign over its packed keccak) and posts it; returns its hash and status. */
  async postOrder(wallet: Wallet, o: OrderInput): Promise<{ orderHash: string; status: string }> {
    const m = await this.metadata();
    const baseToken = await this.baseToken();
    const expiry = Math.floor(Date.now() / 1000) + o.lifetimeSeconds;
    const salt = randomUint256();
    const orderHash = keccak256(
      encodePacked(
        ['bytes32', 'address', 'uint256', 'uint256', 'uint256', 'uint256', 'address', 'address', 'bool'],
        [o.marketHash as Hex, baseToken, o.totalBetSize, o.percentageOdds, BigInt(expiry), salt, wallet.address, m.executorAddress as Hex, o.isMakerBettingOutcomeOne],
      ),
    );
    const signature = await wallet.signMessage({ raw: orderHash });
    const res = await apiPost<PostOrdersResult>('/orders/new', {
      orders: [
        {
          marketHash: o.marketHash,
          maker: wallet.address,
          totalBetSize: o.totalBetSize.toString(),
          percentageOdds: o.percentageOdds.toString(),
          baseToken,
          apiExpiry: expiry,
          expiry,
          executor: m.executorAddress,
          isMakerBettingOutcomeOne: o.isMakerBettingOutcomeOne,
          salt: salt.toString(),
          signature,
        },
      ],
    });
    return { orderHash, status: res.statuses[orderHash] ?? res.statuses[orderHash.toLowerCase()] ?? 'UNKNOWN' };
  }

  private async cancelDomain(name: string) {
    const m = await this.metadata();
    const salt = toHex(crypto.getRandomValues(new Uint8Array(32)));
    return { salt, domain: { name, version: '1.0', chainId: m.chainId, salt } };
  }

  async cancelOrders(wallet: Wallet, orderHashes: string[]): Promise<CancelResult> {
    const m = await this.metadata();
    const { salt, domain } = await this.cancelDomain(m.domainNames.cancelV2);
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = await wallet.signTypedData({
      domain,
      types: { Details: [{ name: 'orderHashes', type: 'string[]' }, { name: 'timestamp', type: 'uint256' }] },
      primaryType: 'Details',
      message: { orderHashes, timestamp: BigInt(timestamp) },
    });
    return apiPost<CancelResult>('/orders/cancel/v2', { orderHashes, signature, salt, maker: wallet.address, timestamp });
  }

  async cancelAll(wallet: Wallet): Promise<CancelResult> {
    const m = await this.metadata();
    const { salt, domain } = await this.cancelDomain(m.domainNames.cancelAll);
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = await wallet.signTypedData({
      domain,
      types: { Details: [{ name: 'timestamp', type: 'uint256' }] },
      primaryType: 'Details',
      message: { timestamp: BigInt(timestamp) },
    });
    return apiPost<CancelResult>('/orders/cancel/all', { signature, salt, maker: wallet.address, timestamp });
  }
}

export const exchange = new ExchangeApi();

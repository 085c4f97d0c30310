// The records the page shows: the typed client's (amounts and odds as bigint), plus the operator's account view.
export type {
  Balance,
  BestOdds,
  CancelResult,
  Fixture,
  FillResult,
  League,
  LiveScore,
  Market,
  Metadata,
  Order,
  RefundGroup,
  SearchResult,
  Sport,
  Trade,
} from '../../../src/sdk/index.js';

/** GET /admin/accounts/:address as the wire carries it (amounts as decimal strings of wei). */
export interface AccountView {
  address: string;
  baseToken: string;
  balance: string;
  escrowed: string;
  openExposure: string;
  openOrders: number;
  restricted: boolean;
  restrictedUntil: string | null;
  recentShortfalls: string[];
}

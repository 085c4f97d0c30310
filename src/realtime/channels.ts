// The channel names of spec section 6: parsing, parameter validation, canonical spelling, history policy.
import { checksumAddress } from '../protocol/address.js';

export type Namespace =
  | 'markets'
  | 'main_line'
  | 'fixtures'
  | 'best_odds'
  | 'order_book'
  | 'active_orders'
  | 'recent_trades'
  | 'recent_trades_consolidated'
  | 'ce_refunds'
  | 'parlay_markets';

/** Publications kept per channel of each namespace (DECISIONS.md); 0 = no history, not recoverable. */
export const HISTORY_SIZE: Readonly<Record<Namespace, number>> = {
  order_book: 5000,
  recent_trades: 2000,
  recent_trades_consolidated: 1000,
  markets: 1000,
  main_line: 500,
  active_orders: 100,
  fixtures: 100,
  ce_refunds: 100,
  best_odds: 0,
  parlay_markets: 0,
};

export interface Channel {
  namespace: Namespace;
  /** The one spelling publications are made under (hashes lower case, addresses checksummed). */
  canonical: string;
  /** active_orders, ce_refunds: the checksummed address that alone may subscribe (else 103). */
  owner?: string;
}

const HASH = /^0x[0-9a-fA-F]{64}$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const EVENT_ID = /^[A-Za-z0-9._:-]{1,100}$/;

/** The channels without a parameter, by name. */
export const GLOBAL_CHANNELS: Readonly<Record<string, Namespace>> = {
  'markets:global': 'markets',
  'main_line:global': 'main_line',
  'fixtures:live_scores': 'fixtures',
  'fixtures:global': 'fixtures',
  'best_odds:global': 'best_odds',
  'recent_trades:global': 'recent_trades',
  'recent_trades_consolidated:global': 'recent_trades_consolidated',
  'parlay_markets:global': 'parlay_markets',
};

export const orderBookMarketChannel = (marketHash: string) => `order_book:market_${marketHash.toLowerCase()}`;
export const orderBookEventChannel = (exchangeEventId: string) => `order_book:event_${exchangeEventId}`;
export const activeOrdersChannel = (maker: string) => `active_orders:${checksumAddress(maker)}`;
export const refundsChannel = (bettor: string) => `ce_refunds:${checksumAddress(bettor)}`;

/** The channel a client asked for, or undefined when the name or its parameter is not valid (error 102). */
export function parseChannel(name: string): Channel | undefined {
  const global = GLOBAL_CHANNELS[name];
  if (global) return { namespace: global, canonical: name };
  const colon = name.indexOf(':');
  if (colon < 0) return undefined;
  const prefix = name.slice(0, colon);
  const param = name.slice(colon + 1);
  switch (prefix) {
    case 'order_book':
      if (param.startsWith('market_') && HASH.test(param.slice(7))) {
        return { namespace: 'order_book', canonical: orderBookMarketChannel(param.slice(7)) };
      }
      if (param.startsWith('event_') && EVENT_ID.test(param.slice(6))) {
        return { namespace: 'order_book', canonical: orderBookEventChannel(param.slice(6)) };
      }
      return undefined;
    case 'active_orders':
      if (!ADDRESS.test(param)) return undefined;
      return { namespace: 'active_orders', canonical: activeOrdersChannel(param), owner: checksumAddress(param) };
    case 'ce_refunds':
      if (!ADDRESS.test(param)) return undefined;
      return { namespace: 'ce_refunds', canonical: refundsChannel(param), owner: checksumAddress(param) };
    default:
      return undefined;
  }
}

export function historySizeOf(channel: string): number {
  const parsed = parseChannel(channel);
  return parsed ? HISTORY_SIZE[parsed.namespace] : 0;
}

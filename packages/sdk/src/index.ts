// @oddex/sdk: the typed client of the Oddex API. Browser-safe: no Node-only imports (fetch and WebSocket are
// the globals unless passed in). Node-only helpers (key files) live in the CLI.
export {
  OddexClient,
  randomSalt,
  type OddexClientOptions,
  type OrderInput,
  type SignedOrder,
  type FillInput,
  type MarketQuery,
  type OrdersQuery,
  type TradesQuery,
  type ConsolidatedQuery,
  type RefundsQuery,
  type AccountQuery,
} from './client.js';
export { OddexAdmin, type OddexAdminOptions, type NewFixture, type NewMarket } from './admin.js';
export { OddexApiError, OddexNetworkError, OddexOrderRejectedError } from './errors.js';
export { DEFAULT_RETRY, type FetchLike, type RetryPolicy } from './http.js';
export { privateKeyAccount, toAccount, type AccountLike, type SignerInput, type TypedDataToSign } from './signer.js';
export { generatePrivateKey } from './keys.js';
export { HeartbeatKeeper, type HeartbeatKeeperOptions } from './heartbeat.js';
export { OddexRealtime, type ChannelHandlers, type RealtimeOptions, type WebSocketConstructor } from './realtime.js';
export { LocalOrderBook, type OrderBookEvents } from './order-book.js';
export * from './odds.js';
export { bettingDelayFor, type BettingDelays } from '../../../src/protocol/betting-delay.js';
export type * from './types.js';

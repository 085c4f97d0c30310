// What every route and service can reach. Built once by server.ts.
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.js';
import type { Db } from './store/db.js';
import type { ApiKeys } from './admin/api-keys.js';
import type { EventBus } from './events.js';
import type { RealtimeServer } from './realtime/server.js';
import type { TradingService } from './trading/service.js';
import type { Catalogue } from './catalogue/catalogue.js';
import type { SignatureVerifier } from './verify/verifier.js';
import type { EvmChain } from './chain/evm/evm-chain.js';

export interface AppContext {
  config: Config;
  db: Db;
  log: FastifyBaseLogger;
  /** Milliseconds since the epoch; the one clock the server reads (tests may replace it). */
  now: () => number;
  adminToken: string;
  /** False until start-up finished and while shutting down (drives /health/ready and 503s). */
  ready: boolean;
  apiKeys: ApiKeys;
  /** Changes flow from writers to the realtime fan-out through here. */
  bus: EventBus;
  /** Order hashing and signature recovery off the writer thread, handing commands on in client order. */
  verifier: SignatureVerifier;
  /** The engine, its runner, journal and read models, and the settlement chain. */
  trading: TradingService;
  /** Sports, leagues, teams, fixtures, markets, live scores (in memory, written through to SQLite). */
  catalogue: Catalogue;
  /** With ODDEX_CHAIN=evm: the chain (faucet, balances on chain). */
  evm?: () => EvmChain | undefined;
  /** The realtime WebSocket server (set by server.ts once the HTTP server exists). */
  realtime?: RealtimeServer;
}

// One typed configuration with defaults, overridable by environment (ODDEX_*) and CLI flags (--kebab-case).
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { BRIDGE_FEE_NAMES } from './protocol/wire/metadata.js';
import type { BettingDelays } from './protocol/betting-delay.js';

/** How logs are written: `auto` is readable on a terminal and JSON lines otherwise. */
export type LogFormat = 'auto' | 'json' | 'pretty';


/** The realtime (Centrifuge protocol) server. */
export interface RealtimeConfig {
  /** Server ping `{}` period; the connect result announces it rounded up to seconds. */
  pingIntervalMs: number;
  /** A client that does not answer a ping within this is closed with 3012. */
  pongTimeoutMs: number;
  maxChannelsPerConnection: number;
  /** Outgoing bytes a connection may have pending before it is closed as a slow consumer (3008). */
  maxBufferedBytes: number;
  /** How long publications stay in channel history. */
  historyTtlMs: number;
  /** How long a channel's stream (epoch and offset) outlives its last publication once nobody subscribes. */
  idleStreamTtlMs: number;
  /** Grace after a connection token's exp before an unrefreshed connection is closed (3005). */
  expiredCloseDelayMs: number;
  /** Time a new WebSocket has to send its connect command. */
  connectTimeoutMs: number;
  /**
   * Per-connection command bucket: burst size and refill per second (error 111 when empty; a command answered 111
   * still counts, and a connection a whole burst in debt is closed with 3013).
   */
  commandBurst: number;
  commandsPerSecond: number;
  /** Open WebSocket connections one remote address may hold on a node; past it, upgrades are refused with 429. */
  maxConnectionsPerIp: number;
}

/** The parts of the exchange a process runs (ODDEX_ROLES). */
export const ROLES = ['gateway', 'sequencer', 'projector', 'realtime', 'settlement'] as const;
export type Role = (typeof ROLES)[number];

export interface RateLimitConfig {
  enabled: boolean;
  windowMs: number;
  orderOpsPerWindow: number;
  orderReadsPerWindow: number;
  tradesPerWindow: number;
  basePerWindow: number;
  globalWindowMs: number;
  globalPerWindow: number;
  /** Failed admin authentications an address may make per window before it is refused with 429. */
  adminAuthFailuresPerWindow: number;
}

/** Self-service test funds of demo mode: a fixed grant, a ceiling on what an address holds, grants per window. */
export interface DemoFundsConfig {
  /** Wei of the base token per grant. */
  amount: bigint;
  /** No grant lifts an address's balance plus escrow above this (wei). */
  maxBalance: bigint;
  windowMs: number;
  /** Grants per address per window. */
  perAddress: number;
  /** Requests per client address (IP) per window. */
  perClient: number;
}

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  /** How long a write waits for SQLite's lock before failing with 503. */
  storageBusyTimeoutMs: number;
  /**
   * How long a read waits for the read models to cover the journal position it must see (every write acknowledged
   * before it arrived, or the client's Oddex-Min-Position) before answering 503 READ_MODEL_BEHIND.
   */
  readWaitMs: number;
  /** Tests only: the projector waits this long before each batch (an artificially slow projector). */
  projectorDelayMs: number;
  /** The read models are projected on a thread of their own (off: on the writer's thread, a turn after each commit). */
  projectorThread: boolean;
  adminToken: string | undefined;
  demo: boolean;
  /** With demo on: fund demo wallets and run the market maker and a demo taker in process. */
  demoLiquidity: boolean;
  /** With demo on, on the local ledger: POST /user/demo-funds, so a new wallet can bet without the operator. */
  demoFunds: DemoFundsConfig;
  logLevel: string;
  logFormat: LogFormat;
  chainId: number;
  chainVersion: string;
  domainVersion: string;
  domainNames: { fill: string; cancelV2: string; cancelEvent: string; cancelAll: string; parlayRequest: string };
  /** Empty: the deployment's own, generated on first start and kept in the data dir. */
  executorAddress: string;
  eip712FillHasher: string;
  tokenTransferProxy: string;
  baseTokenAddress: string;
  baseTokenSymbol: string;
  baseTokenDecimals: number;
  exchangeAffiliate: string;
  oddsLadderStepSize: number;
  /** Wei of the base token. */
  makerMinimum: bigint;
  takerMinimum: bigint;
  /**
   * Commission on a bettor's net winnings per market, taken at settlement (basis points, by bet type), paid to
   * `account` less the affiliate's share (basis points of the fee) for trades naming an affiliate; and the cash-out
   * fee (basis points of a cash out's value).
   */
  fees: { singlesBps: number; parlaysBps: number; account: string; affiliateShareBps: number; cashoutBps: number };
  /** /metadata exchangeAffiliate.amount (a wire string). */
  exchangeAffiliateAmount: bigint;
  /** /metadata bridge fee figures by field name (bridgeFee, depositBridgeFee, ...); a local exchange has no bridge: 0. */
  bridgeFees: Record<string, number>;
  /** /metadata crosschainFees: chain id to fee. */
  crosschainFees: Record<string, number>;
  bettingDelay: BettingDelays;
  chainConfirmationDelayMs: number;
  /** Where fills settle: the in-process ledger (default) or contracts on an EVM chain. */
  chain: 'local' | 'evm';
  evm: EvmConfig;
  /** Handing fills to the settlement chain: a submit slower than timeoutMs failed; retries back off from min to max. */
  /** Fills waiting for the chain beyond maxBacklog are refused with CHAIN_BACKLOG. */
  chainSubmit: { timeoutMs: number; minBackoffMs: number; maxBackoffMs: number; maxBacklog: number };
  /**
   * A settlement process taking over on an on-chain escrow waits for the read side before it hands the escrow what is
   * unpaid: a wait this long is logged as a warning (and again each time as long again).
   */
  settlementReadSideWarnMs: number;
  /** An engine snapshot is written after this many journaled commands... */
  snapshotEveryCommands: number;
  /** ...or this long after the last one, whichever comes first (if anything was journaled since). */
  snapshotEveryMs: number;
  /** A stop closes a keep-alive connection once it has carried no request for this long (a request on its way is answered). */
  shutdownIdleGraceMs: number;
  /**
   * The sequencer archives the journal rows its oldest kept snapshot covers this often (0: only when an operator asks,
   * POST /admin/journal/archive). Archived rows leave the database for files under the data dir.
   */
  journalArchiveEveryMs: number;
  /**
   * Crash tests only: the process kills itself (SIGKILL) right after committing a batch with a change of this type,
   * before anything else happens (no reply, no chain hand-off, no realtime).
   */
  killAfterCommitOf: 'marketReported' | 'marketStatusChanged' | 'fixtureStatusChanged' | undefined;
  realtimeTokenTtlSeconds: number;
  /** Live API keys an address may hold before POST /user/api-keys refuses another (operator-issued ones count). */
  userApiKeysPerAddress: number;
  heartbeatMaxSeconds: number;
  cancelMaxSkewSeconds: number;
  /** Parlay requests: makers quote for quoteWindowMs, then the book takes fills for fillWindowMs; requests per bettor and minute. */
  parlays: { quoteWindowMs: number; fillWindowMs: number; requestsPerMinute: number };
  maxBodyBytes: number;
  /** Worker threads hashing orders and recovering signatures off the writer thread; 0 verifies on the writer. */
  verifyThreads: number;
  /** Longest accepted query string (after the "?"), bytes. */
  maxQueryBytes: number;
  /** Whole request (headers and body) must arrive within this. */
  requestTimeoutMs: number;
  /** Request headers must arrive within this (slow-header clients). */
  headersTimeoutMs: number;
  maxOrdersPerRequest: number;
  maxMarketsPerRequest: number;
  restriction: { windowMs: number; threshold: number; durationMs: number };
  rateLimits: RateLimitConfig;
  realtime: RealtimeConfig;
  /**
   * What this process runs: every role (one process, the default); `realtime` alone (a realtime node); `gateway`
   * alone (the HTTP API, sending commands over NATS); `projector` alone; `settlement` alone (the chain adapter,
   * reporting to the sequencer over NATS); or a set with `sequencer`, which runs the whole exchange but what it
   * leaves out and also answers gateways' commands over NATS.
   */
  roles: readonly Role[];
  /** NATS between gateways and the sequencer (nats://host:port); unset: commands are calls within the process. */
  natsUrl: string | undefined;
  /**
   * A gateway's commands: how long one attempt waits for the sequencer's reply, and for how long attempts are
   * repeated (with backoff) while no sequencer answers before the command is answered 503 SEQUENCER_UNAVAILABLE.
   */
  sequencerRequest: { attemptTimeoutMs: number; retryForMs: number };
  /** Redis for the realtime broker shared by several processes; unset: the in-process broker. */
  redisUrl: string | undefined;
  /**
   * PostgreSQL holding the journal, snapshots, read models, catalogue and keys (postgres://user:password@host/db);
   * unset: SQLite files in the data dir.
   */
  databaseUrl: string | undefined;
  /**
   * A hot standby sequencer: with another writer holding the PostgreSQL journal, this process follows the journal
   * with a warm engine and takes over (lock, new fencing epoch, then the rest of start-up) once that writer's
   * session ends, instead of refusing to start. Needs ODDEX_DATABASE_URL and the sequencer role.
   */
  standby: boolean;
  /**
   * Settled markets the catalogue keeps in memory after a read (about 1.3 KB each); older ones are read from the store
   * again when asked for.
   */
  catalogueSettledCache: number;
  /** HMAC secret of realtime tokens, shared by every process of one exchange; unset: one per data dir. */
  realtimeTokenSecret: string | undefined;
}

export interface EvmConfig {
  /** JSON-RPC endpoint; default: the one in the deployment file. */
  rpcUrl: string | undefined;
  /** The deployment file written by `npm run chain` (addresses, chain id); default <dataDir>/evm-deployment.json. */
  deploymentFile: string | undefined;
  /** The executor's private key (0x + 64 hex); default: anvil's development executor. */
  executorKey: string | undefined;
  /** The operator's key, for the faucet, outcome reports and payouts; default: anvil's development operator. */
  operatorKey: string | undefined;
  /** Most fills per settlement transaction, and how long a batch waits to fill up. */
  batchSize: number;
  /** Most gas one settlement transaction may declare (fills are counted by their gas bound): below the block gas limit. */
  batchGas: number;
  batchWaitMs: number;
  /** How often the chain is polled for new blocks. */
  pollMs: number;
  /**
   * How long a transaction the exchange sent may go without a receipt before it counts as lost (a node restarted
   * without its mempool) and its fills are sent again.
   */
  receiptTimeoutMs: number;
}

export class ConfigError extends Error {
  constructor(readonly setting: string, message: string) {
    super(`invalid configuration ${setting}: ${message}`);
  }
}

type Parser<T> = (raw: string, setting: string) => T;

const str: Parser<string> = (raw) => raw;
const int =
  (min: number, max: number): Parser<number> =>
  (raw, setting) => {
    if (!/^-?\d+$/.test(raw.trim())) throw new ConfigError(setting, `expected an integer, got "${raw}"`);
    const n = Number(raw);
    if (n < min || n > max) throw new ConfigError(setting, `expected ${min}..${max}, got ${n}`);
    return n;
  };
const oneOf =
  <T extends string>(values: readonly T[]): Parser<T> =>
  (raw, setting) => {
    if (!(values as readonly string[]).includes(raw)) throw new ConfigError(setting, `expected one of ${values.join(', ')}, got "${raw}"`);
    return raw as T;
  };
const privateKey: Parser<string> = (raw, setting) => {
  if (!/^0x[0-9a-fA-F]{64}$/.test(raw.trim())) throw new ConfigError(setting, 'expected 0x and 64 hex digits');
  return raw.trim();
};
/** The roles a process can run alone, beside a sequencer's process. */
const ALONE: readonly Role[] = ['realtime', 'gateway', 'projector', 'settlement'];
/**
 * A comma list of roles: all of them, or one process's share of them apart: `realtime` alone, `gateway` alone,
 * `projector` alone, `settlement` alone (the chain adapter; its one signer holds a lock of its own), or `sequencer`
 * with any of `settlement`, `projector`, `realtime`.
 */
const roleList: Parser<readonly Role[]> = (raw, setting) => {
  const roles = raw.split(',').map((r) => r.trim()).filter(Boolean);
  for (const r of roles) {
    if (!(ROLES as readonly string[]).includes(r)) throw new ConfigError(setting, `unknown role "${r}"; roles are ${ROLES.join(', ')}`);
  }
  const unique = [...new Set(roles)] as Role[];
  if (unique.length === ROLES.length) return ROLES;
  if (unique.length === 1 && ALONE.includes(unique[0]!)) return unique;
  if (unique.includes('sequencer') && !unique.includes('gateway')) return unique;
  throw new ConfigError(
    setting,
    `a process runs every role, one of ${ALONE.join(', ')} alone, or sequencer with any of settlement, projector, realtime; got "${raw}"`,
  );
};
const natsUrl: Parser<string> = (raw, setting) => {
  if (!/^(nats|tls):\/\/\S+$/.test(raw.trim())) throw new ConfigError(setting, 'expected nats://host:port');
  return raw.trim();
};
const redisUrl: Parser<string> = (raw, setting) => {
  if (!/^rediss?:\/\/\S+$/.test(raw.trim())) throw new ConfigError(setting, 'expected redis://host:port or rediss://host:port');
  return raw.trim();
};
const databaseUrl: Parser<string> = (raw, setting) => {
  if (!/^postgres(ql)?:\/\/\S+$/.test(raw.trim())) throw new ConfigError(setting, 'expected postgres://user:password@host:port/database');
  return raw.trim();
};
/** At least 32 characters: it signs every realtime token. */
const tokenSecret: Parser<string> = (raw, setting) => {
  if (raw.length < 32) throw new ConfigError(setting, 'expected at least 32 characters');
  return raw;
};
const bool: Parser<boolean> = (raw, setting) => {
  const v = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  throw new ConfigError(setting, `expected true or false, got "${raw}"`);
};
const wei: Parser<bigint> = (raw, setting) => {
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(setting, `expected an unsigned integer, got "${raw}"`);
  return BigInt(raw.trim());
};
const positiveWei: Parser<bigint> = (raw, setting) => {
  const v = wei(raw, setting);
  if (v === 0n) throw new ConfigError(setting, 'expected a positive amount');
  return v;
};
const address: Parser<string> = (raw, setting) => {
  if (!/^0x[0-9a-fA-F]{40}$/.test(raw)) throw new ConfigError(setting, `expected a 0x address, got "${raw}"`);
  return raw;
};
/**
 * The odds ladder's step in thousandths of a percent: it divides 100% (so a price's complement, the taker's side, is
 * on the ladder too) and leaves at least one price strictly between 0 and 100%.
 */
const ladderStepSize: Parser<number> = (raw, setting) => {
  const step = int(1, 50_000)(raw, setting);
  if (100_000 % step !== 0) throw new ConfigError(setting, `expected a divisor of 100000 (100% in thousandths of a percent), got ${step}`);
  return step;
};
const msMap: Parser<Record<string, number>> = (raw, setting) => {
  // "soccer=10000,tennis=5000"
  const out: Record<string, number> = {};
  for (const part of raw.split(',').filter(Boolean)) {
    const [k, v] = part.split('=');
    if (!k || v === undefined) throw new ConfigError(setting, `expected key=ms pairs, got "${part}"`);
    out[k.trim().toLowerCase()] = int(0, 3_600_000)(v, setting);
  }
  return out;
};
/** "name=1.5,other=0": non-negative numbers by name (case kept). */
const numberMap: Parser<Record<string, number>> = (raw, setting) => {
  const out: Record<string, number> = {};
  for (const part of raw.split(',').filter(Boolean)) {
    const [k, v] = part.split('=');
    const n = Number(v);
    if (!k?.trim() || v === undefined || v.trim() === '' || !Number.isFinite(n) || n < 0) {
      throw new ConfigError(setting, `expected name=number pairs, got "${part}"`);
    }
    out[k.trim()] = n;
  }
  return out;
};
/** The bridge fee figures by the names /metadata reports: a name it has not (a typo) would be reported nowhere. */
const bridgeFeeMap: Parser<Record<string, number>> = (raw, setting) => {
  const out = numberMap(raw, setting);
  for (const name of Object.keys(out)) {
    if (!(BRIDGE_FEE_NAMES as readonly string[]).includes(name)) {
      throw new ConfigError(setting, `unknown bridge fee "${name}"; the names are ${BRIDGE_FEE_NAMES.join(', ')}`);
    }
  }
  return out;
};
/** Cross-chain fees by chain id (a positive integer, as /metadata's chain ids are). */
const chainFeeMap: Parser<Record<string, number>> = (raw, setting) => {
  const out = numberMap(raw, setting);
  for (const id of Object.keys(out)) {
    if (!/^[1-9]\d*$/.test(id)) throw new ConfigError(setting, `expected <chain id>=<fee> pairs, got chain id "${id}"`);
  }
  return out;
};
export { BRIDGE_FEE_NAMES };

/**
 * Compatibility presets (ODDEX_COMPAT): the signing values of the public exchange the spec models, so a bot written
 * for it signs for Oddex with only its base URL changed. Settings given explicitly still win over a preset.
 * Sources (public): the exchange's API docs (sx-bet/sx-bet-api-docs, source/includes/_orders.md: the cancel domain
 * names with version "1.0", the fill domain "SX Bet" with version "6.0"; _references.md: mainnet chain id 4162;
 * _metadata.md: executorAddress) and its quickstart client (declansx/sx-bet-quickstart: the same executor and fill
 * domain, and the EIP712FillHasher used as the fill domain's verifyingContract).
 * The executor is shared with that exchange, so orders signed for one are valid on the other: sandboxes only.
 */
export const COMPAT_PRESETS: Readonly<Record<string, (c: Config) => void>> = {
  sx: (c) => {
    c.domainNames = {
      fill: 'SX Bet',
      cancelV2: 'CancelOrderV2SportX',
      cancelEvent: 'CancelOrderEventsSportX',
      cancelAll: 'CancelAllOrdersSportX',
      parlayRequest: c.domainNames.parlayRequest,
    };
    c.domainVersion = '6.0';
    c.chainId = 4162;
    c.executorAddress = '0x52adf738AAD93c31f798a30b2C74D658e1E9a562';
    c.eip712FillHasher = '0x845a2Da2D70fEDe8474b1C8518200798c60aC364';
  },
};

const compatPreset: Parser<(c: Config) => void> = (raw, setting) => {
  const preset = COMPAT_PRESETS[raw.trim().toLowerCase()];
  if (!preset) throw new ConfigError(setting, `expected one of ${Object.keys(COMPAT_PRESETS).join(', ')}, got "${raw}"`);
  return preset;
};

interface Setting<T> {
  env: string;
  parse: Parser<T>;
  apply: (c: Config, v: T) => void;
}
const setting = <T>(env: string, parse: Parser<T>, apply: (c: Config, v: T) => void): Setting<unknown> =>
  ({ env, parse, apply }) as Setting<unknown>;

export function defaultConfig(): Config {
  return {
    host: '127.0.0.1',
    port: 8080,
    dataDir: resolve('data'),
    storageBusyTimeoutMs: 5000,
    readWaitMs: 1000,
    projectorDelayMs: 0,
    projectorThread: true,
    adminToken: undefined,
    demo: true,
    demoLiquidity: true,
    // 100 and 1,000 test USDC (6 decimals): a few bets' worth, and a ceiling well below a demo maker's funds.
    demoFunds: { amount: 100_000_000n, maxBalance: 1_000_000_000n, windowMs: 3_600_000, perAddress: 3, perClient: 10 },
    logLevel: 'info',
    logFormat: 'auto',
    chainId: 4162,
    chainVersion: 'v1',
    domainVersion: '1.0',
    domainNames: {
      fill: 'Oddex',
      cancelV2: 'CancelOrderV2Oddex',
      cancelEvent: 'CancelOrderEventsOddex',
      cancelAll: 'CancelAllOrdersOddex',
      parlayRequest: 'ParlayRequestOddex',
    },
    executorAddress: '',
    eip712FillHasher: '0x3E96B0a25d51e3Cc89C557f152797c33B839968f',
    tokenTransferProxy: '0x38aef22Dc8b2a9b8D3c1E53D35B6B0D0B2a1DA63',
    baseTokenAddress: '0x6629Ce1Cf35Cc1329ebB4F63202F3f197b3F050B',
    baseTokenSymbol: 'USDC',
    baseTokenDecimals: 6,
    exchangeAffiliate: '0x0000000000000000000000000000000000000000',
    oddsLadderStepSize: 125,
    makerMinimum: 10_000_000n,
    takerMinimum: 1_000_000n,
    // The public exchange's rates: nothing on singles, 5% of the profit on parlays.
    fees: { singlesBps: 0, parlaysBps: 500, account: '0x0000000000000000000000000000000000000000', affiliateShareBps: 0, cashoutBps: 0 },
    exchangeAffiliateAmount: 0n,
    bridgeFees: Object.fromEntries(BRIDGE_FEE_NAMES.map((name) => [name, 0])),
    crosschainFees: {},
    bettingDelay: {
      preGameMs: 500,
      inPlayMs: 8000,
      inPlayBySportMs: { soccer: 10_000, tennis: 5000 },
      inPlayByLeagueMs: {},
    },
    chainConfirmationDelayMs: 1000,
    chain: 'local',
    evm: { rpcUrl: undefined, deploymentFile: undefined, executorKey: undefined, operatorKey: undefined, batchSize: 80, batchGas: 25_000_000, batchWaitMs: 20, pollMs: 100, receiptTimeoutMs: 120_000 },
    chainSubmit: { timeoutMs: 10_000, minBackoffMs: 250, maxBackoffMs: 30_000, maxBacklog: 10_000 },
    settlementReadSideWarnMs: 10_000,
    snapshotEveryCommands: 50_000,
    snapshotEveryMs: 300_000,
    shutdownIdleGraceMs: 300,
    journalArchiveEveryMs: 0,
    killAfterCommitOf: undefined,
    realtimeTokenTtlSeconds: 3600,
    userApiKeysPerAddress: 5,
    heartbeatMaxSeconds: 3600,
    cancelMaxSkewSeconds: 60,
    parlays: { quoteWindowMs: 3000, fillWindowMs: 60_000, requestsPerMinute: 10 },
    maxBodyBytes: 1_048_576,
    // The writer thread keeps one core busy; the workers take the others (at least one).
    verifyThreads: Math.max(1, availableParallelism() - 1),
    maxQueryBytes: 8192,
    requestTimeoutMs: 30_000,
    headersTimeoutMs: 10_000,
    maxOrdersPerRequest: 100,
    maxMarketsPerRequest: 20,
    restriction: { windowMs: 3_600_000, threshold: 3, durationMs: 900_000 },
    rateLimits: {
      enabled: true,
      windowMs: 60_000,
      orderOpsPerWindow: 5500,
      orderReadsPerWindow: 5500,
      tradesPerWindow: 200,
      basePerWindow: 500,
      globalWindowMs: 600_000,
      globalPerWindow: 35_000,
      adminAuthFailuresPerWindow: 10,
    },
    realtime: {
      pingIntervalMs: 25_000,
      pongTimeoutMs: 8000,
      maxChannelsPerConnection: 512,
      maxBufferedBytes: 1_048_576,
      historyTtlMs: 300_000,
      idleStreamTtlMs: 86_400_000,
      expiredCloseDelayMs: 25_000,
      connectTimeoutMs: 10_000,
      commandBurst: 2000,
      commandsPerSecond: 200,
      maxConnectionsPerIp: 200,
    },
    roles: ROLES,
    redisUrl: undefined,
    natsUrl: undefined,
    sequencerRequest: { attemptTimeoutMs: 2000, retryForMs: 10_000 },
    databaseUrl: undefined,
    standby: false,
    catalogueSettledCache: 10_000,
    realtimeTokenSecret: undefined,
  };
}

const SETTINGS: Setting<unknown>[] = [
  // First: a preset sets several values that the settings below may override one by one.
  setting('ODDEX_COMPAT', compatPreset, (c, apply) => apply(c)),
  setting('ODDEX_HOST', str, (c, v) => (c.host = v)),
  setting('ODDEX_PORT', int(0, 65535), (c, v) => (c.port = v)),
  setting('ODDEX_DATA_DIR', str, (c, v) => (c.dataDir = resolve(v))),
  setting('ODDEX_STORAGE_BUSY_TIMEOUT_MS', int(0, 600_000), (c, v) => (c.storageBusyTimeoutMs = v)),
  setting('ODDEX_READ_WAIT_MS', int(0, 60_000), (c, v) => (c.readWaitMs = v)),
  setting('ODDEX_TEST_PROJECTOR_DELAY_MS', int(0, 60_000), (c, v) => (c.projectorDelayMs = v)),
  setting('ODDEX_PROJECTOR_THREAD', bool, (c, v) => (c.projectorThread = v)),
  // Read as the CLI reads it and as the stored file is read: trimmed (an HTTP header's value is, so a token kept with
  // its whitespace could never be sent), and blank is none (generated and stored in the data dir).
  setting('ODDEX_ADMIN_TOKEN', str, (c, v) => (c.adminToken = v.trim() || undefined)),
  setting('ODDEX_DEMO', bool, (c, v) => (c.demo = v)),
  setting('ODDEX_DEMO_LIQUIDITY', bool, (c, v) => (c.demoLiquidity = v)),
  setting('ODDEX_DEMO_FUNDS_AMOUNT', positiveWei, (c, v) => (c.demoFunds.amount = v)),
  setting('ODDEX_DEMO_FUNDS_MAX_BALANCE', positiveWei, (c, v) => (c.demoFunds.maxBalance = v)),
  setting('ODDEX_DEMO_FUNDS_WINDOW_MS', int(1000, 86_400_000 * 30), (c, v) => (c.demoFunds.windowMs = v)),
  setting('ODDEX_DEMO_FUNDS_PER_ADDRESS', int(1, 1_000_000), (c, v) => (c.demoFunds.perAddress = v)),
  setting('ODDEX_DEMO_FUNDS_PER_CLIENT', int(1, 1_000_000), (c, v) => (c.demoFunds.perClient = v)),
  setting('ODDEX_LOG_LEVEL', oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const), (c, v) => (c.logLevel = v)),
  setting('ODDEX_LOG_FORMAT', oneOf(['auto', 'json', 'pretty'] as const), (c, v) => (c.logFormat = v)),
  setting('ODDEX_CHAIN_ID', int(1, 2 ** 31 - 1), (c, v) => (c.chainId = v)),
  setting('ODDEX_CHAIN_VERSION', str, (c, v) => (c.chainVersion = v)),
  setting('ODDEX_DOMAIN_VERSION', str, (c, v) => (c.domainVersion = v)),
  setting('ODDEX_DOMAIN_FILL', str, (c, v) => (c.domainNames.fill = v)),
  setting('ODDEX_DOMAIN_CANCEL_V2', str, (c, v) => (c.domainNames.cancelV2 = v)),
  setting('ODDEX_DOMAIN_CANCEL_EVENT', str, (c, v) => (c.domainNames.cancelEvent = v)),
  setting('ODDEX_DOMAIN_CANCEL_ALL', str, (c, v) => (c.domainNames.cancelAll = v)),
  setting('ODDEX_DOMAIN_PARLAY_REQUEST', str, (c, v) => (c.domainNames.parlayRequest = v)),
  setting('ODDEX_PARLAY_QUOTE_WINDOW_MS', int(0, 600_000), (c, v) => (c.parlays.quoteWindowMs = v)),
  setting('ODDEX_PARLAY_FILL_WINDOW_MS', int(1000, 86_400_000), (c, v) => (c.parlays.fillWindowMs = v)),
  setting('ODDEX_PARLAY_REQUESTS_PER_MINUTE', int(1, 100_000), (c, v) => (c.parlays.requestsPerMinute = v)),
  setting('ODDEX_EXECUTOR_ADDRESS', address, (c, v) => (c.executorAddress = v)),
  setting('ODDEX_FILL_HASHER_ADDRESS', address, (c, v) => (c.eip712FillHasher = v)),
  setting('ODDEX_BASE_TOKEN_ADDRESS', address, (c, v) => (c.baseTokenAddress = v)),
  setting('ODDEX_ODDS_LADDER_STEP', ladderStepSize, (c, v) => (c.oddsLadderStepSize = v)),
  setting('ODDEX_MAKER_MINIMUM', wei, (c, v) => (c.makerMinimum = v)),
  setting('ODDEX_TAKER_MINIMUM', wei, (c, v) => (c.takerMinimum = v)),
  setting('ODDEX_FEE_SINGLES_BPS', int(0, 10_000), (c, v) => (c.fees.singlesBps = v)),
  setting('ODDEX_FEE_PARLAYS_BPS', int(0, 10_000), (c, v) => (c.fees.parlaysBps = v)),
  setting('ODDEX_FEE_ACCOUNT', address, (c, v) => (c.fees.account = v)),
  setting('ODDEX_AFFILIATE_SHARE_BPS', int(0, 10_000), (c, v) => (c.fees.affiliateShareBps = v)),
  setting('ODDEX_CASHOUT_FEE_BPS', int(0, 10_000), (c, v) => (c.fees.cashoutBps = v)),
  setting('ODDEX_AFFILIATE_ADDRESS', address, (c, v) => (c.exchangeAffiliate = v)),
  setting('ODDEX_AFFILIATE_AMOUNT', wei, (c, v) => (c.exchangeAffiliateAmount = v)),
  setting('ODDEX_BRIDGE_FEES', bridgeFeeMap, (c, v) => Object.assign(c.bridgeFees, v)),
  setting('ODDEX_CROSSCHAIN_FEES', chainFeeMap, (c, v) => (c.crosschainFees = v)),
  setting('ODDEX_DELAY_PREGAME_MS', int(0, 3_600_000), (c, v) => (c.bettingDelay.preGameMs = v)),
  setting('ODDEX_DELAY_INPLAY_MS', int(0, 3_600_000), (c, v) => (c.bettingDelay.inPlayMs = v)),
  setting('ODDEX_DELAY_INPLAY_BY_SPORT', msMap, (c, v) => (c.bettingDelay.inPlayBySportMs = v)),
  setting('ODDEX_DELAY_INPLAY_BY_LEAGUE', msMap, (c, v) => (c.bettingDelay.inPlayByLeagueMs = v)),
  setting('ODDEX_CHAIN_CONFIRM_MS', int(0, 3_600_000), (c, v) => (c.chainConfirmationDelayMs = v)),
  setting('ODDEX_CHAIN', oneOf(['local', 'evm'] as const), (c, v) => (c.chain = v)),
  setting('ODDEX_RPC_URL', str, (c, v) => (c.evm.rpcUrl = v)),
  setting('ODDEX_EVM_DEPLOYMENT', str, (c, v) => (c.evm.deploymentFile = resolve(v))),
  setting('ODDEX_EXECUTOR_KEY', privateKey, (c, v) => (c.evm.executorKey = v)),
  setting('ODDEX_OPERATOR_KEY', privateKey, (c, v) => (c.evm.operatorKey = v)),
  setting('ODDEX_EVM_BATCH_SIZE', int(1, 1000), (c, v) => (c.evm.batchSize = v)),
  setting('ODDEX_EVM_BATCH_GAS', int(1_000_000, 2_000_000_000), (c, v) => (c.evm.batchGas = v)),
  setting('ODDEX_EVM_BATCH_WAIT_MS', int(0, 60_000), (c, v) => (c.evm.batchWaitMs = v)),
  setting('ODDEX_EVM_POLL_MS', int(10, 60_000), (c, v) => (c.evm.pollMs = v)),
  setting('ODDEX_EVM_RECEIPT_TIMEOUT_MS', int(1000, 3_600_000), (c, v) => (c.evm.receiptTimeoutMs = v)),
  setting('ODDEX_CHAIN_MAX_BACKLOG', int(1, 10_000_000), (c, v) => (c.chainSubmit.maxBacklog = v)),
  setting('ODDEX_CHAIN_SUBMIT_TIMEOUT_MS', int(1, 3_600_000), (c, v) => (c.chainSubmit.timeoutMs = v)),
  setting('ODDEX_CHAIN_RETRY_MIN_MS', int(1, 3_600_000), (c, v) => (c.chainSubmit.minBackoffMs = v)),
  setting('ODDEX_CHAIN_RETRY_MAX_MS', int(1, 3_600_000), (c, v) => (c.chainSubmit.maxBackoffMs = v)),
  setting('ODDEX_SETTLEMENT_READ_SIDE_WARN_MS', int(1, 3_600_000), (c, v) => (c.settlementReadSideWarnMs = v)),
  setting('ODDEX_SNAPSHOT_EVERY_COMMANDS', int(1, 100_000_000), (c, v) => (c.snapshotEveryCommands = v)),
  setting('ODDEX_SNAPSHOT_EVERY_MS', int(1000, 86_400_000), (c, v) => (c.snapshotEveryMs = v)),
  setting('ODDEX_SHUTDOWN_IDLE_GRACE_MS', int(0, 10_000), (c, v) => (c.shutdownIdleGraceMs = v)),
  setting('ODDEX_JOURNAL_ARCHIVE_EVERY_MS', int(0, 604_800_000), (c, v) => (c.journalArchiveEveryMs = v)),
  setting('ODDEX_TEST_KILL_AFTER_COMMIT_OF', oneOf(['marketReported', 'marketStatusChanged', 'fixtureStatusChanged'] as const), (c, v) => (c.killAfterCommitOf = v)),
  setting('ODDEX_REALTIME_TOKEN_TTL', int(1, 86_400 * 30), (c, v) => (c.realtimeTokenTtlSeconds = v)),
  setting('ODDEX_USER_API_KEYS_PER_ADDRESS', int(1, 1000), (c, v) => (c.userApiKeysPerAddress = v)),
  setting('ODDEX_VERIFY_THREADS', int(0, 64), (c, v) => (c.verifyThreads = v)),
  setting('ODDEX_MAX_BODY_BYTES', int(1024, 64 * 1_048_576), (c, v) => (c.maxBodyBytes = v)),
  setting('ODDEX_MAX_QUERY_BYTES', int(256, 1_048_576), (c, v) => (c.maxQueryBytes = v)),
  setting('ODDEX_REQUEST_TIMEOUT_MS', int(1, 3_600_000), (c, v) => (c.requestTimeoutMs = v)),
  setting('ODDEX_HEADERS_TIMEOUT_MS', int(1, 3_600_000), (c, v) => (c.headersTimeoutMs = v)),
  setting('ODDEX_MAX_ORDERS_PER_REQUEST', int(1, 10_000), (c, v) => (c.maxOrdersPerRequest = v)),
  setting('ODDEX_RESTRICTION_WINDOW_MS', int(1, 86_400_000 * 30), (c, v) => (c.restriction.windowMs = v)),
  setting('ODDEX_RESTRICTION_THRESHOLD', int(1, 1000), (c, v) => (c.restriction.threshold = v)),
  setting('ODDEX_RESTRICTION_MS', int(0, 86_400_000 * 30), (c, v) => (c.restriction.durationMs = v)),
  setting('ODDEX_MAX_MARKETS_PER_REQUEST', int(1, 10_000), (c, v) => (c.maxMarketsPerRequest = v)),
  setting('ODDEX_RATE_LIMITS', bool, (c, v) => (c.rateLimits.enabled = v)),
  setting('ODDEX_RATE_WINDOW_MS', int(1, 3_600_000), (c, v) => (c.rateLimits.windowMs = v)),
  setting('ODDEX_RATE_ORDER_OPS', int(1, 10_000_000), (c, v) => (c.rateLimits.orderOpsPerWindow = v)),
  setting('ODDEX_RATE_ORDER_READS', int(1, 10_000_000), (c, v) => (c.rateLimits.orderReadsPerWindow = v)),
  setting('ODDEX_RATE_TRADES', int(1, 10_000_000), (c, v) => (c.rateLimits.tradesPerWindow = v)),
  setting('ODDEX_RATE_BASE', int(1, 10_000_000), (c, v) => (c.rateLimits.basePerWindow = v)),
  setting('ODDEX_RATE_GLOBAL_WINDOW_MS', int(1, 86_400_000), (c, v) => (c.rateLimits.globalWindowMs = v)),
  setting('ODDEX_RATE_GLOBAL', int(1, 100_000_000), (c, v) => (c.rateLimits.globalPerWindow = v)),
  setting('ODDEX_RATE_ADMIN_AUTH_FAILURES', int(1, 1_000_000), (c, v) => (c.rateLimits.adminAuthFailuresPerWindow = v)),
  setting('ODDEX_REALTIME_PING_MS', int(100, 3_600_000), (c, v) => (c.realtime.pingIntervalMs = v)),
  setting('ODDEX_REALTIME_PONG_TIMEOUT_MS', int(100, 3_600_000), (c, v) => (c.realtime.pongTimeoutMs = v)),
  setting('ODDEX_REALTIME_MAX_CHANNELS', int(1, 100_000), (c, v) => (c.realtime.maxChannelsPerConnection = v)),
  setting('ODDEX_REALTIME_MAX_CONNECTIONS_PER_IP', int(1, 1_000_000), (c, v) => (c.realtime.maxConnectionsPerIp = v)),
  setting('ODDEX_REALTIME_MAX_BUFFERED_BYTES', int(1024, 1 << 30), (c, v) => (c.realtime.maxBufferedBytes = v)),
  setting('ODDEX_REALTIME_HISTORY_TTL_MS', int(1000, 86_400_000), (c, v) => (c.realtime.historyTtlMs = v)),
  setting('ODDEX_REALTIME_IDLE_STREAM_TTL_MS', int(1000, 2_592_000_000), (c, v) => (c.realtime.idleStreamTtlMs = v)),
  setting('ODDEX_ROLES', roleList, (c, v) => (c.roles = v)),
  setting('ODDEX_REDIS_URL', redisUrl, (c, v) => (c.redisUrl = v)),
  setting('ODDEX_DATABASE_URL', databaseUrl, (c, v) => (c.databaseUrl = v)),
  setting('ODDEX_NATS_URL', natsUrl, (c, v) => (c.natsUrl = v)),
  setting('ODDEX_STANDBY', bool, (c, v) => (c.standby = v)),
  setting('ODDEX_SEQUENCER_ATTEMPT_TIMEOUT_MS', int(10, 600_000), (c, v) => (c.sequencerRequest.attemptTimeoutMs = v)),
  setting('ODDEX_SEQUENCER_RETRY_MS', int(0, 600_000), (c, v) => (c.sequencerRequest.retryForMs = v)),
  setting('ODDEX_CATALOGUE_SETTLED_CACHE', int(100, 10_000_000), (c, v) => (c.catalogueSettledCache = v)),
  setting('ODDEX_REALTIME_TOKEN_SECRET', tokenSecret, (c, v) => (c.realtimeTokenSecret = v)),
];

/** `--data-dir x` and `--data-dir=x` map to ODDEX_DATA_DIR. */
function flagsToEnv(argv: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (!arg.startsWith('--')) throw new ConfigError(arg, 'unexpected argument; flags look like --port 8080');
    const eq = arg.indexOf('=');
    const name = eq >= 0 ? arg.slice(2, eq) : arg.slice(2);
    const env = 'ODDEX_' + name.toUpperCase().replace(/-/g, '_');
    if (!SETTINGS.some((s) => s.env === env)) throw new ConfigError(arg, 'unknown flag');
    const value = eq >= 0 ? arg.slice(eq + 1) : argv[i + 1];
    if (eq < 0) i++;
    if (value === undefined) throw new ConfigError(arg, 'missing value');
    out[env] = value;
  }
  return out;
}

export function loadConfig(
  env: Record<string, string | undefined> = process.env,
  argv: readonly string[] = [],
  overrides: Partial<Config> = {},
): Config {
  const config = defaultConfig();
  const merged = { ...env, ...flagsToEnv(argv) };
  for (const s of SETTINGS) {
    const raw = merged[s.env];
    if (raw === undefined || raw === '') continue;
    s.apply(config, s.parse(raw, s.env));
  }
  const loaded = { ...config, ...overrides };
  checkPairs(loaded);
  checkRealtimeNode(loaded);
  checkSplitRoles(loaded);
  checkStandby(loaded);
  return loaded;
}

/** Settings that bound one another: a pair in the wrong order would start an exchange that ignores one of them. */
function checkPairs(config: Config): void {
  const { minBackoffMs, maxBackoffMs } = config.chainSubmit;
  if (minBackoffMs > maxBackoffMs) {
    throw new ConfigError('ODDEX_CHAIN_RETRY_MIN_MS', `${minBackoffMs} is above ODDEX_CHAIN_RETRY_MAX_MS (${maxBackoffMs}): retries would all wait the maximum`);
  }
  const { amount, maxBalance } = config.demoFunds;
  if (config.demo && amount > maxBalance) {
    throw new ConfigError('ODDEX_DEMO_FUNDS_AMOUNT', `${amount} is above ODDEX_DEMO_FUNDS_MAX_BALANCE (${maxBalance}): every demo-funds grant would be refused`);
  }
}

/** A realtime node alone serves what the exchange publishes through Redis, to clients holding the exchange's tokens. */
function checkRealtimeNode(config: Config): void {
  if (config.roles.length !== 1 || config.roles[0] !== 'realtime') return;
  const needs: [string, string | undefined, string][] = [
    ['ODDEX_REDIS_URL', config.redisUrl, 'a realtime node serves what the exchange publishes through Redis: set it'],
    ['ODDEX_REALTIME_TOKEN_SECRET', config.realtimeTokenSecret, 'a realtime node checks tokens the exchange issued: set the secret they share'],
  ];
  for (const [setting, value, why] of needs) if (!value) throw new ConfigError(setting, why);
}

/** A standby follows a PostgreSQL journal and takes over its writer's role: it runs the sequencer. */
function checkStandby(config: Config): void {
  if (!config.standby) return;
  const needs: [string, boolean, string][] = [
    ['ODDEX_STANDBY', config.roles.includes('sequencer'), 'a standby takes over the sequencer: run it with the sequencer role'],
    ['ODDEX_DATABASE_URL', Boolean(config.databaseUrl), 'a standby follows the journal in PostgreSQL: set it'],
  ];
  for (const [setting, met, why] of needs) if (!met) throw new ConfigError(setting, why);
}

/** A gateway, a sequencer, a projector or a settlement process of its own shares the database and reaches the others over NATS. */
function checkSplitRoles(config: Config): void {
  const alone = config.roles.length === 1 ? config.roles[0] : undefined;
  const sequencer = config.roles.includes('sequencer') && config.roles.length < ROLES.length;
  const who =
    alone === 'gateway'
      ? 'a gateway'
      : alone === 'projector'
        ? 'a projector process'
        : alone === 'settlement'
          ? 'a settlement process'
          : sequencer
            ? config.roles.includes('settlement')
              ? 'a sequencer apart from its gateways'
              : 'a sequencer without the settlement role (a settlement process settles its fills)'
            : undefined;
  if (!who) return;
  const needs: [string, string | undefined, string][] = [
    ['ODDEX_DATABASE_URL', config.databaseUrl, `${who} shares the journal and the read side in PostgreSQL: set it`],
    ['ODDEX_NATS_URL', config.natsUrl, `${who} exchanges commands over NATS: set it`],
  ];
  for (const [setting, value, why] of needs) if (!value) throw new ConfigError(setting, why);
}

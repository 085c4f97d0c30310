// The sequencer's side of the process: the engine behind its runner (the single writer of the journal), the guards
// a command passes against the read side first, what the catalogue and the chain ask of trading (reports, fees,
// executed fills), and the hand-off of accepted fills and paid refunds to the settlement chain. The read models'
// projection and the realtime publisher are built beside it (server.ts) and follow the journal it writes.
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { Catalogue, MarketRecord } from '../catalogue/catalogue.js';
import type { ChainSink, SettlementChain } from '../chain/settlement-chain.js';
import { ChainSubmitter } from '../chain/chain-submitter.js';
import { Engine } from '../engine/engine.js';
import { DomainError } from '../engine/errors.js';
import { chargedFees } from '../engine/fees.js';
import type { Change } from '../engine/changes.js';
import type { BalanceView, Command, EngineParams, FixtureStatusChange, MarketResult, ResultOf, SettlementFees } from '../engine/types.js';
import { ExchangeError } from '../protocol/errors.js';
import type { SequencerPort } from './port.js';
import { catalogueParlays, chainReports, handChangesToChain, handUnpaidEscrow, submitPendingFills } from './chain-handoff.js';
import { ChainReportQueue } from './chain-report-queue.js';
import { isParlayMarket } from '../catalogue/model.js';
import { checksumAddress } from '../protocol/address.js';
import type { ArchivedRange, ReadModels, TradingStore } from '../store/ports.js';
import type { ProjectionLoop } from '../store/projection-loop.js';
import { EngineRunner, type ReplayReport, type WarmEngine } from '../store/runner.js';

export interface SequencerDeps {
  config: Pick<
    Config,
    | 'oddsLadderStepSize'
    | 'makerMinimum'
    | 'takerMinimum'
    | 'cancelMaxSkewSeconds'
    | 'baseTokenAddress'
    | 'baseTokenDecimals'
    | 'exchangeAffiliate'
    | 'restriction'
    | 'chainVersion'
    | 'snapshotEveryCommands'
    | 'snapshotEveryMs'
    | 'journalArchiveEveryMs'
    | 'storageBusyTimeoutMs'
    | 'killAfterCommitOf'
    | 'chain'
    | 'chainSubmit'
    | 'fees'
    | 'roles'
  >;
  store: TradingStore;
  /** Where durable journal entries go: the read models' projection (and through it the realtime publisher). */
  projection: ProjectionLoop;
  /** The read side, as the projection leaves it: what commands are checked against besides the engine. */
  readModels: ReadModels;
  /** The engine was rebuilt (start-up, or from disk after a failed commit): what follows it starts over. */
  rebuilt: () => void;
  log: FastifyBaseLogger;
  now: () => number;
  /** The catalogue's markets: types and labels, and which are closed in play. */
  catalogue: Pick<Catalogue, 'getMarket' | 'marketsFor' | 'isClosedInPlay' | 'applyCommitted'>;
  /** Builds the settlement chain (server.ts chooses it), given where to report and the live engine. */
  createChain: (sink: ChainSink, engine: () => Engine) => SettlementChain;
  /** Where archived journal rows go. */
  archiveDir: string;
  /** Another writer took the journal over (a standby): this process must stop taking commands from gateways. */
  superseded?: () => void;
  expirySweepMs?: number;
}

/**
 * How long apart the runner writes again a group the database was too busy to take: the WAL checkpoint thread holds
 * the lock for a few milliseconds at a time, and the SQLite store's commits do not wait for it themselves.
 */
const BUSY_RETRY_MS = 1;

/**
 * How far (in commands) the read side may be behind the journal while fills and new orders are checked against it
 * and the engine's windows of recent fills (10k) and closed orders (20k): far below both.
 */
const REPLAY_WINDOW_LAG = 2000;

/** How long a stop waits for the read models to cover the journal (the next start projects what is left). */
export const SHUTDOWN_PROJECTION_WAIT_MS = 3_000;

/** How long an archive waits for the read models to cover the journal; rows they have not projected stay. */
const ARCHIVE_PROJECTION_WAIT_MS = 5_000;

/** The engine's parameters as the configuration sets them: the writer's and a standby's engines are built alike. */
export function engineParams(
  c: Pick<
    Config,
    | 'oddsLadderStepSize'
    | 'makerMinimum'
    | 'takerMinimum'
    | 'cancelMaxSkewSeconds'
    | 'baseTokenAddress'
    | 'exchangeAffiliate'
    | 'restriction'
    | 'chain'
  >,
): EngineParams {
  return {
    oddsLadderStepSize: c.oddsLadderStepSize,
    makerMinimum: c.makerMinimum,
    takerMinimum: c.takerMinimum,
    cancelMaxSkewSeconds: c.cancelMaxSkewSeconds,
    baseToken: c.baseTokenAddress,
    // Checksummed as wallets are keyed: the affiliate is paid its share of fees.
    affiliate: checksumAddress(c.exchangeAffiliate),
    restrictionWindowMs: c.restriction.windowMs,
    restrictionThreshold: c.restriction.threshold,
    restrictionMs: c.restriction.durationMs,
    walletsOnChain: c.chain === 'evm',
  };
}

export class Sequencer implements SequencerPort {
  readonly runner: EngineRunner;
  readonly readModels: ReadModels;
  /** The read models' projection: its position is what reads wait for. */
  readonly projection: ProjectionLoop;
  /** The settlement chain behind retries: a chain that throws or hangs leaves fills PENDING, never trading broken. */
  readonly chain: ChainSubmitter;
  /** The chain's reports on their way to the journal (kept while it refuses commands); set with the chain. */
  private chainReports!: ChainReportQueue;
  private sweep: NodeJS.Timeout | undefined;
  private archiveTimer: NodeJS.Timeout | undefined;
  /** The archive of the journal under way, if any. */
  private archiving: Promise<unknown> = Promise.resolve();
  private superseded_ = false;

  constructor(private readonly deps: SequencerDeps) {
    const c = deps.config;
    const params = engineParams(c);
    this.readModels = deps.readModels;
    this.projection = deps.projection;
    this.runner = new EngineRunner(deps.store, {
      createEngine: (snapshot) => (snapshot ? Engine.restore(params, snapshot) : new Engine(params)),
      now: deps.now,
      snapshotEveryCommands: c.snapshotEveryCommands,
      snapshotEveryMs: c.snapshotEveryMs,
      // A busy database is waited out for as long as a write waits for SQLite's lock.
      busyRetry: { delayMs: BUSY_RETRY_MS, forMs: c.storageBusyTimeoutMs },
      onSnapshotProblem: (err, what) => deps.log.error({ err }, what),
      committed: (changes) => {
        if (c.killAfterCommitOf && changes.some((ch) => ch.type === c.killAfterCommitOf)) process.kill(process.pid, 'SIGKILL');
        // Before any caller is answered: the catalogue's statuses follow the commit (its disk copy is in it).
        deps.catalogue.applyCommitted(changes);
        this.handToChain(changes);
      },
      projection: this.projection,
      archiveDir: deps.archiveDir,
      // The chain's one signer and nonce follow the writer: a superseded one stops settling (the new writer hands the
      // pending fills to its own chain adapter).
      onSuperseded: () => {
        this.superseded_ = true;
        this.chain.stop();
        this.chainReports.stop();
        // Only where this process settled (the settlement role): otherwise a settlement process settles, as before.
        if (c.roles.includes('settlement')) deps.log.warn('settlement stopped: the writer that took the journal over settles from here on');
        deps.superseded?.();
      },
      onStorageFailure: (err, rebuilt) => {
        if (rebuilt === true) {
          deps.log.error({ err }, 'journal commit failed: batch refused, engine rebuilt from disk; trading continues');
          // (What the chain reported while the store refused commands is kept and tried again: chain-report-queue.ts.)
          deps.rebuilt();
        } else if (rebuilt === 'retried') {
          deps.log.error({ err }, 'journal commit failed and the engine could not be rebuilt from disk yet; commands are refused and the next one rebuilds it again');
        } else deps.log.fatal({ err }, 'journal commit failed and the engine could not be rebuilt from disk; refusing trading until restart');
      },
    });
    this.chain = new ChainSubmitter(this.createChain(deps), {
      ...c.chainSubmit,
      onFailure: ({ fillHash, attempt, retryInMs, err }) =>
        deps.log.warn({ err, fillHash, attempt, retryInMs }, 'settlement chain did not take a fill; it stays PENDING and is retried'),
    });
  }

  /** The chain reports back through journaled commands. */
  private createChain(deps: SequencerDeps): SettlementChain {
    this.chainReports = new ChainReportQueue({ submit: (cmd) => this.submit(cmd), log: deps.log });
    const reports = this.chainReports;
    return deps.createChain(chainReports((cmd, what) => reports.run(cmd, what), deps.now), () => this.engine);
  }

  /**
   * Whether another writer took the journal over: this process's engine and journal position stop where it lost the
   * lock, and are no longer the exchange's.
   */
  get superseded(): boolean {
    return this.superseded_;
  }

  /** The live engine: read its state through its accessors only. */
  get engine(): Engine {
    return this.runner.engine;
  }

  /**
   * Rebuilds the engine (snapshot and journal tail), resubmits pending fills to the chain, starts the expiry sweep.
   * Orders still resting on markets closed in play (a stop between the fixture going live and their cancel) are
   * cancelled now.
   */
  async start(warm?: WarmEngine): Promise<ReplayReport> {
    // A standby taking over brings its warm engine: nothing to rebuild but what was journaled since it last read.
    const replayed = warm ? await this.runner.resume(warm) : await this.runner.replay();
    this.deps.rebuilt();
    this.chain.start();
    submitPendingFills(this.chain, this.engine);
    await handUnpaidEscrow(this.chain, this.readModels, catalogueParlays(this.deps.catalogue));
    this.sweep = setInterval(() => this.sweepExpired(), this.deps.expirySweepMs ?? 200);
    this.sweep.unref();
    const archiveEvery = this.deps.config.journalArchiveEveryMs;
    if (archiveEvery > 0) {
      this.archiveTimer = setInterval(() => void this.archiveOnSchedule(), archiveEvery);
      this.archiveTimer.unref();
    }
    const catalogue = this.deps.catalogue;
    const closed = this.engine.bookedMarkets().flatMap((h) => catalogue.getMarket(h) ?? []);
    this.cancelRestingOrders(closed.filter((m) => catalogue.isClosedInPlay(m))).catch((err: unknown) =>
      this.deps.log.error({ err }, 'cancelling orders of markets closed in play failed'),
    );
    return replayed;
  }

  private async cancelRestingOrders(markets: readonly MarketRecord[]): Promise<void> {
    const withOrders = markets.filter((m) => this.engine.openOrdersIn(m.marketHash).length > 0);
    if (withOrders.length === 0) return;
    await this.submit({ kind: 'cancelMarketOrders', at: this.deps.now(), marketHashes: withOrders.map((m) => m.marketHash) });
  }

  async stop(): Promise<void> {
    if (this.sweep) clearInterval(this.sweep);
    clearInterval(this.archiveTimer);
    this.chain.stop();
    this.chainReports.stop();
    try {
      await this.runner.close(SHUTDOWN_PROJECTION_WAIT_MS);
    } catch (err) {
      // A projector that cannot write (a full disk) must not hold the stop up: the journal holds every command.
      const journaled = this.runner.durableSeq;
      const projected = this.projection.position;
      this.deps.log.warn(
        { err, journaled, projected, left: journaled - projected },
        `stopping without waiting longer for the read models: they cover journal position ${projected} of ${journaled}; ` +
          `the next start projects the ${journaled - projected} commands left from the journal`,
      );
    }
    // A clean stop leaves a snapshot of the final state, so the next start replays nothing.
    await this.runner.snapshot();
  }

  snapshotNow(): Promise<number> {
    return this.runner.snapshot();
  }

  /**
   * Archives journal rows the oldest kept snapshot covers, once the read models have projected what is durable (rows
   * they still need are never archived). One archive at a time.
   */
  archiveJournal(): Promise<ArchivedRange | undefined> {
    const run = this.archiving.then(async () => {
      await this.projection.waitFor(this.runner.durableSeq, ARCHIVE_PROJECTION_WAIT_MS);
      return this.deps.store.snapshots.archiveJournal(this.deps.archiveDir, this.projection.position);
    });
    this.archiving = run.catch(() => undefined);
    return run;
  }

  /** ODDEX_JOURNAL_ARCHIVE_EVERY_MS: the operator's archive, on a timer; a failure is logged and tried next time. */
  private async archiveOnSchedule(): Promise<void> {
    try {
      const archived = await this.archiveJournal();
      if (archived) this.deps.log.info({ ...archived }, 'journal rows archived');
    } catch (err) {
      this.deps.log.warn({ err }, 'archiving the journal failed; tried again at the next interval');
    }
  }

  /** Why commands are refused now (the store is being healed, or broken), for readiness; undefined while it takes them. */
  storageProblem(): 'STORAGE_UNAVAILABLE' | 'STORAGE_FAILED' | undefined {
    // A store whose last commit was refused is unready until a write succeeds: asked here, so that an exchange no
    // command reaches while it is unready finds out without one.
    this.runner.probeWrites();
    return this.runner.storageProblem;
  }

  acknowledged(): number {
    return this.runner.durableSeq;
  }

  /** Every write is acknowledged here: the newest durable position is past all of them. */
  latestPosition(): Promise<number> {
    return Promise.resolve(this.acknowledged());
  }

  balancesAfterWrite(address: string): Promise<BalanceView> {
    return Promise.resolve(this.engine.balances(address));
  }

  liveEngine(): Engine {
    return this.engine;
  }

  /** Applies a command; resolves once it is durable. */
  submit<C extends Command>(cmd: C): Promise<ResultOf<C>> {
    // Checked here, where the chain is, whichever process the fill came through.
    const max = this.deps.config.chainSubmit.maxBacklog;
    if (cmd.kind === 'fill' && this.chain.backlog >= max) {
      return Promise.reject(new ExchangeError('CHAIN_BACKLOG', `${max} fills are waiting for the settlement chain; try again later`));
    }
    const guarded = cmd.kind === 'fill' || cmd.kind === 'postOrders' || cmd.kind === 'replaceOrders';
    // The engine's replay windows hold the fills and closed orders the read side has not projected yet only while
    // the projector is a bounded number of commands behind: past that, such a command waits for it.
    if (guarded && this.runner.durableSeq - this.projection.position > REPLAY_WINDOW_LAG) {
      return this.projection.waitFor(this.runner.durableSeq, 60_000).then(() => this.checkedSubmit(cmd));
    }
    return this.checkedSubmit(cmd);
  }

  private async checkedSubmit<C extends Command>(cmd: C): Promise<ResultOf<C>> {
    // The engine remembers only recent fills and closed orders; every older one is in the read side.
    if (cmd.kind === 'fill' && (await this.readModels.fillUsed(cmd.fillSalt, cmd.fillHash))) throw new DomainError('FILL_ALREADY_SUBMITTED');
    if (cmd.kind === 'postOrders') return this.postOrders(cmd) as Promise<ResultOf<C>>;
    // All or nothing: a new order of a replace posted before, however long ago, refuses the whole replace.
    if (cmd.kind === 'replaceOrders') {
      const posted = await this.readModels.orders.postedOrders(cmd.orders.map((o) => o.orderHash));
      if (posted.size > 0) throw new DomainError('ORDERS_ALREADY_EXIST', `order ${[...posted][0]} was already posted`);
    }
    return this.runner.submit(cmd);
  }

  /**
   * Orders posted before (open or long closed) are answered ORDERS_ALREADY_EXIST from the read side and never reach
   * the engine, so the journaled command holds only the new ones and replays the same.
   */
  private async postOrders(cmd: Extract<Command, { kind: 'postOrders' }>): Promise<ResultOf<typeof cmd>> {
    const posted = await this.readModels.orders.postedOrders(cmd.orders.map((o) => o.orderHash));
    if (posted.size === 0) return this.runner.submit(cmd);
    const fresh = cmd.orders.filter((o) => !posted.has(o.orderHash));
    const statuses = fresh.length > 0 ? (await this.runner.submit({ ...cmd, orders: fresh })).statuses : [];
    let next = 0;
    return {
      kind: 'postOrders',
      statuses: cmd.orders.map((o) => (posted.has(o.orderHash) ? { orderHash: o.orderHash, status: 'ORDERS_ALREADY_EXIST' as const } : statuses[next++]!)),
    };
  }

  // ---- what the catalogue asks of the trading side ------------------------------------------------

  /**
   * Markets were reported: journals the results, which cancels their open orders, settles their trades and sets
   * their catalogue status, with the suspensions and the fixture status that go with them, in one command.
   */
  async marketsReported(
    reports: MarketResult[],
    finalScore?: { teamOneScore: number; teamTwoScore: number },
    along: { suspend?: string[]; finishedFixture?: FixtureStatusChange } = {},
  ): Promise<void> {
    // Who holds positions, read before the report settles them: an on-chain escrow pays each of them.
    const bettors = reports.map((r) => this.engine.bettorsIn(r.marketHash));
    const fees = this.settlementFees(reports.map((r) => r.marketHash));
    await this.submit({
      kind: 'reportMarkets',
      at: this.deps.now(),
      reports: reports.map((r) => ({ ...r, ...finalScore })),
      ...(fees ? { fees } : {}),
      ...(along.suspend && along.suspend.length > 0 ? { suspend: along.suspend } : {}),
      ...(along.finishedFixture ? { finishedFixture: along.finishedFixture } : {}),
    });
    this.chain.marketsReported(reports.map((r, i) => ({ marketHash: r.marketHash, outcome: r.outcome, bettors: bettors[i]!, parlay: this.isParlay(r.marketHash) })));
  }

  /** Whether a market settles at the parlays' commission rate (else the singles'). */
  private isParlay(marketHash: string): boolean {
    const market = this.deps.catalogue.getMarket(marketHash);
    return market !== undefined && isParlayMarket(market);
  }

  /**
   * The commission each reported market charges, by its bet type, or undefined when none does. On chain the
   * settlement contract charges the same rates (the configuration takes them from its deployment) at the claim.
   */
  private settlementFees(marketHashes: readonly string[]): SettlementFees | undefined {
    const fees = chargedFees(this.deps.config.fees);
    const bpsByMarket: Record<string, number> = {};
    for (const marketHash of marketHashes) {
      const bps = this.isParlay(marketHash) ? fees.parlaysBps : fees.singlesBps;
      if (bps > 0) bpsByMarket[marketHash] = bps;
    }
    if (Object.keys(bpsByMarket).length === 0) return undefined;
    return { bpsByMarket, account: checksumAddress(fees.account), affiliateShareBps: fees.affiliateShareBps };
  }

  /** Right after a commit: accepted fills go to the chain, and refunds paid from escrow are paid on chain too. */
  private handToChain(changes: readonly Change[]): void {
    handChangesToChain(this.chain, this.engine, changes);
  }

  private sweepExpired(): void {
    const next = this.engine.nextExpiryAt();
    const now = this.deps.now();
    if (next !== undefined && next <= now) {
      this.submit({ kind: 'expire', at: now }).catch((err: unknown) => this.deps.log.error({ err }, 'expiry sweep not recorded'));
    }
  }
}

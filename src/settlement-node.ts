// Starts a settlement process (ODDEX_ROLES=settlement): the chain adapter (the local ledger's confirmations, or the
// EVM contracts with the executor's and operator's keys) apart from the sequencer. It follows the PostgreSQL journal
// with an engine replica, as a hot standby sequencer does, and so knows every pending fill and its terms, and learns
// from each new command's change records the fills accepted, refunds paid and markets reported. What the chain does
// goes back to the sequencer as commands over NATS (chain-report-sender.ts). One settlement process settles at a
// time (one signer, one nonce): it holds the settlement lock; another one started beside it stands by, following the
// journal, and takes over the moment that session ends, handing every fill still pending to the chain again.
import type pino from 'pino';
import { Gauge, type Registry } from 'prom-client';
import type { Config } from './config.js';
import { createLoggers, resolveLogFormat } from './log.js';
import { serveStandbyHealth, standbyNode, standbyRegistry, type StandbyNode } from './standby-health.js';
import { Engine } from './engine/engine.js';
import { LocalChain } from './chain/settlement-chain.js';
import { PARLAY_MARKET_TYPE } from './catalogue/model.js';
import { engineParams } from './sequencer/sequencer.js';
import { follow, JournalFollower } from './sequencer/journal-follower.js';
import { SettlementSession } from './sequencer/settlement-session.js';
import { ReadSideWait } from './sequencer/read-side-wait.js';
import type { ParlayLookup } from './sequencer/chain-handoff.js';
import { ChainReportSender } from './sequencer/nats/chain-report-sender.js';
import { JournalReader } from './store/postgres/journal-reader.js';
import { takeSettlementLock } from './store/postgres/settlement-lock.js';
import { workInTurns } from './store/postgres/lock-turns.js';
import { openReadSide, type ReadSide } from './storage-backends.js';

/** How long after a block range refused as overlapping the chain is followed again from the journal's cursor. */
const RESYNC_PAUSE_MS = 200;
/** How often the read side is read while a takeover waits for it to cover the replica (for the escrow's unpaid list). */
const PROJECTED_POLL_MS = 100;

export async function startSettlementNode(baseConfig: Config, opts: { logDestination?: pino.DestinationStream; now?: () => number } = {}): Promise<StandbyNode> {
  const databaseUrl = baseConfig.databaseUrl;
  const natsUrl = baseConfig.natsUrl;
  if (!databaseUrl || !natsUrl) throw new Error('a settlement process needs ODDEX_DATABASE_URL and ODDEX_NATS_URL (loadConfig checks both)');
  const logFormat = resolveLogFormat(baseConfig.logFormat, !opts.logDestination && process.stdout.isTTY === true);
  const { log } = createLoggers(baseConfig.logLevel, logFormat, opts.logDestination);
  const now = opts.now ?? Date.now;
  // The EVM adapter and its keys, pointed at the deployment file as the sequencer's configuration is (viem loaded only then).
  const evm = baseConfig.chain === 'evm' ? (await import('./chain/evm/setup.js')).setUpEvm(baseConfig, log) : undefined;
  const config = { ...(evm?.config ?? baseConfig), logFormat };
  const createChain = evm?.createChain ?? ((sink) => new LocalChain(config.chainConfirmationDelayMs, now, sink));

  let session: SettlementSession | undefined;
  const params = engineParams(config);
  const journal = await JournalReader.open(databaseUrl);
  const follower = new JournalFollower({
    journal,
    createEngine: (snapshot) => (snapshot ? Engine.restore(params, snapshot) : new Engine(params)),
    now,
    log,
    // Nothing to answer repeats of: no replies are kept.
    remember: { ms: 0, max: 0 },
    watch: (cmd, before) => session?.watch(cmd, before),
    rebuilt: () => session?.resubmit(),
  });
  try {
    await follower.rebuild();
  } catch (err) {
    await journal.close();
    throw err;
  }
  log.info({ position: follower.position }, `following the journal at position ${follower.position}`);
  const stopFollowing = new AbortController();
  const following = follow(follower, { log }, stopFollowing.signal);

  // The read side only for an on-chain escrow's takeover (what it has not paid) and its reports (parlays' rate).
  let readSide: Promise<ReadSide> | undefined;
  const reads = () => (readSide ??= openReadSide(databaseUrl));
  const parlays: ParlayLookup = async (hashes) => {
    const settled = await (await reads()).catalogue.settledAsync.markets(hashes.map((h) => h.toLowerCase()));
    return new Set(settled.filter((s) => s.market.type === PARLAY_MARKET_TYPE).map((s) => s.market.marketHash.toLowerCase()));
  };
  const readSideWait = new ReadSideWait({
    projectedPosition: async () => (await reads()).projectedPosition(),
    pollMs: PROJECTED_POLL_MS,
    warnAfterMs: config.settlementReadSideWarnMs,
    now,
    log,
  });
  /** The read models once they cover what the replica covered at the takeover: their unpaid lists are complete then. */
  const unpaid = async (cancelled: () => boolean) => {
    const side = await reads();
    return (await readSideWait.until(follower.position, () => stopping || cancelled())) ? side.readModels : undefined;
  };

  let active = false;
  let stopping = false;
  const stopWaiting = new AbortController();
  let stopped: () => void = () => {};
  const whenStopped = new Promise<void>((resolve) => (stopped = resolve));

  /** Settles while it holds the lock; resolves with why it lost it, or undefined once stopped. */
  const settle = async (lost: Promise<Error>): Promise<Error | undefined> => {
    for (;;) {
      // The previous settlement process's last reports are journaled before its lock went: read as far as the journal goes.
      await follower.readNew().catch((err: unknown) => log.warn({ err }, 'the journal could not be read at the takeover; its pending fills are handed as the replica has them'));
      let outOfStep: () => void = () => {};
      const resync = new Promise<'resync'>((resolve) => (outOfStep = () => resolve('resync')));
      const reports = new ChainReportSender(natsUrl, config.sequencerRequest, log, () => outOfStep());
      session = new SettlementSession({
        engine: () => follower.replica,
        createChain,
        report: (cmd, what) => void reports.send(cmd, what),
        now,
        submit: config.chainSubmit,
        log,
        escrow: { unpaid, parlays },
      });
      session.start();
      active = true;
      log.info({ position: follower.position, pendingFills: follower.replica.pendingFillCount }, 'settling fills on the chain (holding the settlement lock)');
      const why = await Promise.race([lost, whenStopped, resync]);
      active = false;
      session.stop();
      session = undefined;
      await reports.close();
      if (why !== 'resync') return why ?? undefined;
      // The range that came first is being journaled: the replica reads it before the chain is followed again.
      await new Promise((r) => setTimeout(r, RESYNC_PAUSE_MS));
    }
  };

  const registry = settlementMetrics(() => active, follower, () => session, readSideWait);
  // Health for supervisors and /metrics (listening before the lock is taken, so a standby answers too: live, not ready).
  let health;
  try {
    health = await serveStandbyHealth({ host: config.host, port: config.port, registry, active: () => active, log, name: 'settlement process' });
  } catch (err) {
    stopFollowing.abort();
    await following;
    await journal.close();
    throw err;
  }
  const run = workInTurns({
    take: (wait) => takeSettlementLock({ connectionString: databaseUrl }, wait),
    signal: stopWaiting.signal,
    log,
    says: {
      standingBy: 'standing by: another settlement process holds the settlement lock',
      lost: 'the settlement lock was lost: settlement stopped; waiting for the lock again',
      unreachable: 'the settlement lock was not reached; tried again shortly',
    },
    work: settle,
  });

  return standbyNode(health, log, () => active, async () => {
    stopping = true;
    stopWaiting.abort();
    stopped();
    await run;
    stopFollowing.abort();
    await following;
    await health.close();
    await journal.close();
    if (readSide) await (await readSide).close();
  });
}

/** The settlement process's figures at /metrics: whether it settles, the replica's position, fills waiting for the chain. */
function settlementMetrics(active: () => boolean, follower: JournalFollower, session: () => SettlementSession | undefined, readSideWait: ReadSideWait): Registry {
  const registry = standbyRegistry({ name: 'oddex_settlement_active', help: '1 while this process holds the settlement lock and settles, 0 while it stands by' }, active);
  new Gauge({
    name: 'oddex_settlement_position',
    help: 'Journal position the engine replica covers',
    registers: [registry],
    collect() {
      this.set(follower.position);
    },
  });
  new Gauge({
    name: 'oddex_settlement_pending_fills',
    help: 'Fills the journal holds pending (accepted, not yet executed or failed on the chain)',
    registers: [registry],
    collect() {
      this.set(follower.replica.pendingFillCount);
    },
  });
  new Gauge({
    name: 'oddex_settlement_chain_backlog',
    help: 'Fills handed to the chain and not settled yet: not taken (retried) or in flight (0 while standing by)',
    registers: [registry],
    collect() {
      this.set(session()?.chain.backlog ?? 0);
    },
  });
  // A takeover on an on-chain escrow hands it the unpaid refunds and positions once the read side covers the replica.
  new Gauge({
    name: 'oddex_settlement_escrow_wait_seconds',
    help: "How long this takeover has waited for the read side before handing the escrow its unpaid refunds and positions (0: not waiting)",
    registers: [registry],
    collect() {
      this.set(readSideWait.waitedSeconds());
    },
  });
  new Gauge({
    name: 'oddex_settlement_read_side_behind',
    help: 'Journal positions the read side lacked at its last reading while the takeover waits for it (0: not waiting)',
    registers: [registry],
    collect() {
      this.set(readSideWait.behind());
    },
  });
  return registry;
}

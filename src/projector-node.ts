// Starts a projector process (ODDEX_ROLES=projector): it writes the read models from the PostgreSQL journal, from
// their checkpoint on, while the sequencer only sequences. One projector projects at a time: it holds the
// projector's advisory lock, and another one started beside it stands by, blocked on the lock, until that session
// ends (a kill, a lost machine, a database restart), then goes on from the checkpoint. The sequencer's NATS message
// "durable through N" wakes it; without one it reads the journal every IDLE_POLL_MS. After each batch it tells the
// sequencer (which publishes what the batch covers) and the gateways read the checkpoint.
import type { NatsConnection } from '@nats-io/transport-node';
import type pg from 'pg';
import type pino from 'pino';
import { Gauge, Histogram } from 'prom-client';
import type { Config } from './config.js';
import { createLoggers, resolveLogFormat } from './log.js';
import { serveStandbyHealth, standbyNode, standbyRegistry, type StandbyNode } from './standby-health.js';
import { openPool } from './store/postgres/pool.js';
import { migrate } from './store/postgres/migrate.js';
import { journalEnd } from './store/postgres/catalogue-status.js';
import { JournalProjection } from './store/postgres/journal-projection.js';
import { readPosition } from './store/postgres/projector.js';
import { takeProjectorLock } from './store/postgres/projector-lock.js';
import { workInTurns } from './store/postgres/lock-turns.js';
import { connectInBackground } from './sequencer/nats/connection.js';
import {
  decodeSignal,
  encodeSignal,
  JOURNAL_DURABLE_SUBJECT,
  READ_MODELS_PROJECTED_SUBJECT,
} from './sequencer/nats/projector-signals.js';

/** Commands per projector transaction at most (as the sequencer's own projector thread). */
const MAX_BATCH = 2000;
/** How often the journal is read when no message said it grew (a lost message's cost). */
const IDLE_POLL_MS = 100;
/** How long after a failed batch the next one is tried. */
const RETRY_MS = 200;

export async function startProjectorNode(baseConfig: Config, opts: { logDestination?: pino.DestinationStream } = {}): Promise<StandbyNode> {
  const databaseUrl = baseConfig.databaseUrl;
  if (!databaseUrl || !baseConfig.natsUrl) throw new Error('a projector process needs ODDEX_DATABASE_URL and ODDEX_NATS_URL (loadConfig checks both)');
  const logFormat = resolveLogFormat(baseConfig.logFormat, !opts.logDestination && process.stdout.isTTY === true);
  const { log } = createLoggers(baseConfig.logLevel, logFormat, opts.logDestination);
  const config = { ...baseConfig, logFormat };
  const pool = openPool(databaseUrl, 3);
  await migrate(pool).catch(async (err: unknown) => {
    await pool.end().catch(() => {});
    throw err;
  });
  const projection = new JournalProjection(pool, MAX_BATCH);
  const metrics = projectorMetrics(pool, () => active);

  let active = false;
  let stopping = false;
  const stopWaiting = new AbortController();
  /** Resolves the current idle wait early: a message, a lost lock, or the end. */
  let wake: () => void = () => {};
  /**
   * Set by news of the journal that came while a batch ran: the batch may have read the journal before those
   * entries, so the next wait ends at once instead of after IDLE_POLL_MS.
   */
  let news = false;
  let nats: NatsConnection | undefined;
  const closeNats = connectInBackground(
    config.natsUrl!,
    'oddex-projector',
    (nc) => {
      nats = nc;
      nc.subscribe(JOURNAL_DURABLE_SUBJECT, {
        callback: (err, msg) => {
          if (!err && decodeSignal(msg.string(), ['through'] as const)) {
            news = true;
            wake();
          }
        },
      });
    },
    (err) => log.warn({ err }, 'NATS not reached: the journal is read every 100 ms instead'),
  );
  const tell = (position: number, commands: number) => {
    try {
      nats?.publish(READ_MODELS_PROJECTED_SUBJECT, encodeSignal({ position, commands }));
    } catch {
      // The sequencer reads the checkpoint when it hears nothing.
    }
  };
  const idle = (ms: number) =>
    new Promise<void>((resolve) => {
      if (news) return resolve();
      const timer = setTimeout(() => resolve(), ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  /** Projects while it holds the lock: batches back to back while the journal has more, else waits for news. */
  const project = async (lost: Promise<Error>): Promise<Error | undefined> => {
    let lostWith: Error | undefined;
    void lost.then((err) => {
      lostWith = err;
      wake();
    });
    /** Batches fail (the database is away): logged once, then once more when one succeeds. */
    let failing = false;
    while (!stopping && !lostWith) {
      if (config.projectorDelayMs > 0) await idle(config.projectorDelayMs);
      try {
        news = false; // this batch reads everything journaled so far
        const batch = await projection.next();
        if (failing) log.info('projecting again');
        failing = false;
        if (batch) {
          metrics.batch(batch.commands);
          tell(batch.position, batch.commands);
          continue;
        }
      } catch (err) {
        if (!failing) log.error({ err }, 'read models not projected; the journal holds the commands and projection is tried again');
        failing = true;
        await idle(RETRY_MS);
        continue;
      }
      await idle(IDLE_POLL_MS);
    }
    return lostWith;
  };

  const run = workInTurns({
    take: (wait) => takeProjectorLock({ connectionString: databaseUrl }, wait),
    signal: stopWaiting.signal,
    log,
    says: {
      standingBy: 'standing by: another projector holds the projector lock',
      lost: 'the projector lock was lost; waiting for it again',
      unreachable: 'the projector lock was not reached; tried again shortly',
    },
    work: async (lost) => {
      active = true;
      // From the checkpoint as it is now: another projector may have moved it while this one stood by.
      log.info({ position: await projection.readPosition().catch(() => undefined) }, 'projecting the read models (holding the projector lock)');
      const why = await project(lost);
      active = false;
      return why;
    },
  });

  // Health for supervisors and /metrics; a standby is live but not ready.
  const health = await serveStandbyHealth({ host: config.host, port: config.port, registry: metrics.registry, active: () => active, log, name: 'projector' });
  return standbyNode(health, log, () => active, async () => {
    stopping = true;
    stopWaiting.abort();
    wake();
    await run;
    await health.close();
    await closeNats();
    await pool.end();
  });
}

/**
 * A figure read from the database, or NaN (unknown) while the database does not answer: one failed read must not fail
 * the whole scrape, which would hide the lock figure and the process's own metrics exactly during an outage.
 */
const orUnknown = (read: () => Promise<number>): Promise<number> => read().catch(() => NaN);

/** The projector's figures at /metrics: its position, the journal's end, whether it holds the lock, batch sizes. */
function projectorMetrics(pool: pg.Pool, active: () => boolean) {
  const registry = standbyRegistry({ name: 'oddex_projector_active', help: '1 while this process holds the projector lock and projects, 0 while it stands by' }, active);
  new Gauge({
    name: 'oddex_projector_position',
    help: 'Journal position the read models cover (NaN while the database does not answer)',
    registers: [registry],
    async collect() {
      this.set(await orUnknown(() => readPosition(pool)));
    },
  });
  new Gauge({
    name: 'oddex_projector_lag_positions',
    help: 'Journaled commands the read models do not cover yet (NaN while the database does not answer)',
    registers: [registry],
    async collect() {
      this.set(await orUnknown(async () => {
        const [end, position] = await Promise.all([journalEnd(pool), readPosition(pool)]);
        return Math.max(0, end - position);
      }));
    },
  });
  const batches = new Histogram({
    name: 'oddex_projector_batch_commands',
    help: 'Commands per projector transaction',
    buckets: [1, 5, 20, 100, 500, 2000],
    registers: [registry],
  });
  return { registry, batch: (commands: number) => batches.observe(commands) };
}

// GET /metrics in the Prometheus text format: request latency per route, and engine and realtime gauges read at scrape time.
import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Sequencer } from '../sequencer/sequencer.js';
import type { Publisher } from '../realtime/publisher.js';
import type { RealtimeServer } from '../realtime/server.js';

export interface MetricsDeps {
  /** Absent on a gateway process, which runs no engine, journal or projector. */
  trading?: Pick<Sequencer, 'engine' | 'chain' | 'runner' | 'projection' | 'superseded'>;
  /** Absent where the process holds no realtime connections. */
  publisher?: Pick<Publisher, 'rendered'>;
  realtime?: Pick<RealtimeServer, 'connectionCount' | 'history'>;
  /** A database server's connection pool (read side, catalogue, keys): connections open, idle, and queries waiting. */
  databasePool?: () => { total: number; idle: number; waiting: number };
}

/** Installed on the root instance: the latency hook must see every route. */
export function registerMetrics(app: FastifyInstance, { trading, publisher, realtime, databasePool }: MetricsDeps): void {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'oddex_process_' });
  if (databasePool) {
    new Gauge({
      name: 'oddex_database_pool_connections',
      help: 'Connections of the PostgreSQL pool of the read side, catalogue and keys, by state (open, idle), and queries waiting for one',
      labelNames: ['state'] as const,
      registers: [registry],
      collect() {
        const { total, idle, waiting } = databasePool();
        this.set({ state: 'open' }, total);
        this.set({ state: 'idle' }, idle);
        this.set({ state: 'waiting' }, waiting);
      },
    });
  }
  const duration = new Histogram({
    name: 'oddex_http_request_duration_seconds',
    help: 'HTTP request duration by route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    registers: [registry],
  });
  const rejected = new Counter({
    name: 'oddex_http_rejections_total',
    help: 'Requests answered with an error, by errorCode-bearing status',
    labelNames: ['route', 'status'] as const,
    registers: [registry],
  });
  // The share of time the writer's thread (the main thread: engine, journal appends, HTTP; on a gateway, HTTP only)
  // was busy since the last scrape, from the event loop's own utilisation counters.
  let lastUtilization: EventLoopUtilization = performance.eventLoopUtilization();
  new Gauge({
    name: 'oddex_writer_thread_busy_ratio',
    // A gateway has no writer: the same figure is its HTTP thread's.
    help: trading
      ? 'Share of wall time the writer thread (engine, journal, HTTP) was busy since the previous scrape'
      : 'Share of wall time the main thread (HTTP; this process runs no engine or journal) was busy since the previous scrape',
    registers: [registry],
    collect() {
      const now = performance.eventLoopUtilization();
      this.set(performance.eventLoopUtilization(now, lastUtilization).utilization);
      lastUtilization = now;
    },
  });
  if (trading) sequencerMetrics(registry, trading);
  if (publisher && realtime) realtimeMetrics(registry, publisher, realtime);

  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    if (route === '/metrics') return;
    duration.observe({ method: request.method, route, status: reply.statusCode }, reply.elapsedTime / 1000);
    if (reply.statusCode >= 400) rejected.inc({ route, status: reply.statusCode });
  });
  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    reply.header('content-type', registry.contentType);
    return registry.metrics();
  });
}

/** The engine's, the journal's, the projector's and the chain's figures, where the sequencer runs. */
function sequencerMetrics(registry: Registry, trading: NonNullable<MetricsDeps['trading']>): void {
  const engine = () => trading.engine;
  /**
   * The figure, or NaN once another writer took the journal over: this process's engine and journal stopped where it
   * lost the lock (its journal position would stay behind, and the projector's lag behind it go negative).
   */
  const writers = (figure: () => number) => (trading.superseded ? NaN : figure());
  new Gauge({
    name: 'oddex_open_orders',
    help: 'Orders on the books (ACTIVE or INACTIVE)',
    registers: [registry],
    collect() {
      this.set(writers(() => engine().openOrderCount()));
    },
  });
  new Gauge({
    name: 'oddex_trades',
    help: 'Trades recorded since the exchange began',
    registers: [registry],
    // The engine's counter: counting the read side's rows cost 25 ms of the event loop per scrape at 660k trades.
    collect() {
      this.set(writers(() => engine().stats().trades));
    },
  });
  new Gauge({
    name: 'oddex_pending_fills',
    help: 'Fills waiting for chain confirmation',
    registers: [registry],
    collect() {
      this.set(writers(() => engine().stats().pendingFills));
    },
  });
  new Counter({
    name: 'oddex_storage_busy_waits_total',
    help: 'Group commits the database was too busy to take (another connection held it), written again after a short wait',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(trading.runner.busyWaits);
    },
  });
  new Gauge({
    name: 'oddex_journal_position',
    help: 'Journal position of the last acknowledged command',
    registers: [registry],
    collect() {
      this.set(writers(() => trading.runner.durableSeq));
    },
  });
  new Gauge({
    name: 'oddex_projector_position',
    help: 'Journal position the read models cover',
    registers: [registry],
    collect() {
      this.set(trading.projection.position);
    },
  });
  new Gauge({
    name: 'oddex_projector_lag_positions',
    help: 'Acknowledged commands the projector has not written to the read models yet',
    registers: [registry],
    collect() {
      this.set(writers(() => trading.projection.stats().lagPositions));
    },
  });
  new Gauge({
    name: 'oddex_projector_lag_seconds',
    help: 'How long ago the oldest command the projector has not written yet was acknowledged (0: none waits)',
    registers: [registry],
    collect() {
      this.set(writers(() => trading.projection.stats().lagMs / 1000));
    },
  });
  const batches = new Histogram({
    name: 'oddex_projector_batch_commands',
    help: 'Commands per projector transaction',
    buckets: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 5000],
    registers: [registry],
  });
  trading.projection.onBatch = (commands) => batches.observe(commands);
  const chain = () => trading.chain;
  new Counter({
    name: 'oddex_chain_submit_failures_total',
    help: 'Attempts to hand a fill to the settlement chain that threw or timed out (each is retried)',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(chain().failures);
    },
  });
  new Gauge({
    name: 'oddex_chain_submit_backlog',
    help: 'Fills the settlement chain has not settled yet (waiting to be taken, retrying, or in flight)',
    registers: [registry],
    collect() {
      this.set(writers(() => chain().backlog));
    },
  });
}

/** What the realtime side renders and holds. */
function realtimeMetrics(registry: Registry, publisher: NonNullable<MetricsDeps['publisher']>, realtime: NonNullable<MetricsDeps['realtime']>): void {
  new Counter({
    name: 'oddex_realtime_items_rendered_total',
    help: 'Orders, trades, consolidated trades and refund groups rendered for realtime channels (only for channels someone can receive)',
    labelNames: ['kind'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [kind, n] of Object.entries(publisher.rendered)) this.inc({ kind }, n);
    },
  });
  registerRealtimeGauges(registry, realtime);
  new Gauge({
    name: 'oddex_realtime_history_bytes',
    help: 'Bytes of publications retained in channel history for recovery',
    registers: [registry],
    collect() {
      this.set(realtime.history.bytes);
    },
  });

}

/** The realtime server's connections and streams, read at scrape time (the exchange's /metrics and a realtime node's). */
export function registerRealtimeGauges(registry: Registry, realtime: Pick<RealtimeServer, 'connectionCount' | 'history'>): void {
  new Gauge({
    name: 'oddex_realtime_connections',
    help: 'Open realtime WebSocket connections',
    registers: [registry],
    collect() {
      this.set(realtime.connectionCount);
    },
  });
  new Gauge({
    name: 'oddex_realtime_streams',
    help: 'Channel streams held in memory (channels subscribed to, or published to within the idle stream retention)',
    registers: [registry],
    collect() {
      this.set(realtime.history.streams);
    },
  });
}

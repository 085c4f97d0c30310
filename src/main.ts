// Entry point: `npm start [-- --port 8080 ...]`.
import { ConfigError, loadConfig, type Config, type Role } from './config.js';
import { startExchange } from './server.js';
import { startRealtimeNode } from './realtime-node.js';
import { startGateway } from './gateway.js';
import { startProjectorNode } from './projector-node.js';
import { startSettlementNode } from './settlement-node.js';
import { startupBanner } from './startup-banner.js';
import { DataDirInUseError } from './store/sqlite/data-dir.js';
import { startupProblem } from './startup-problem.js';
import { stopOnSignals } from './stop-signals.js';

/** The roles a process can run alone, and what it is called then. */
const NODES: Partial<Record<Role, { name: string; start: (config: Config) => Promise<{ url: string; close(): Promise<void> }> }>> = {
  realtime: { name: 'realtime node', start: (config) => startRealtimeNode(config) },
  gateway: { name: 'gateway', start: (config) => startGateway(config) },
  projector: { name: 'projector', start: (config) => startProjectorNode(config) },
  settlement: { name: 'settlement process', start: (config) => startSettlementNode(config) },
};

let config: Config | undefined;

async function main(): Promise<void> {
  try {
    config = loadConfig(process.env, process.argv.slice(2));
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`oddex: ${err.message}`);
      process.exit(2);
    }
    throw err;
  }
  // A process with one role apart runs that part alone.
  const alone = config.roles.length === 1 ? NODES[config.roles[0]!] : undefined;
  if (alone) {
    const node = await alone.start(config);
    console.log(`Oddex ${alone.name} listening on ${node.url}`);
    stopOnSignals(() => void node.close().then(() => process.exit(0)));
    return;
  }
  // The signals are watched before the server listens: one that comes once it says it listens (a supervisor may act
  // on that line at once) stops it gracefully when its start is done; one before that ends the process, as it did.
  const run: { exchange?: Awaited<ReturnType<typeof startExchange>>; listening: boolean; stopAsked?: string } = { listening: false };
  const stop = (reason: string) => {
    const started = run.exchange;
    if (!started) {
      if (!run.listening) process.exit(reason === 'SIGINT' ? 130 : reason === 'SIGTERM' ? 143 : 1);
      run.stopAsked = reason;
      return;
    }
    started.ctx.log.info({ reason }, 'shutting down');
    started.close().then(
      () => process.exit(0),
      (err) => {
        started.ctx.log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  stopOnSignals(stop, { log: { info: (obj, msg) => run.exchange?.ctx.log.info(obj, msg) }, watchParent: process.env.npm_lifecycle_event === 'start' });
  const exchange = (run.exchange = await startExchange(config, { listening: () => (run.listening = true) }));
  // Printed whatever the log level, so people and scripts always learn the port (ODDEX_PORT=0 picks one).
  if (exchange.ctx.config.logFormat === 'pretty') console.log(startupBanner(exchange.url, exchange.ctx.config).join('\n'));
  else console.log(`Oddex listening on ${exchange.url}`);
  if (run.stopAsked !== undefined) stop(run.stopAsked);
}

main().catch((err) => {
  if (err instanceof DataDirInUseError) {
    console.error(`oddex: ${err.message}`);
    process.exit(1);
  }
  const problem = startupProblem(err, config);
  if (problem) console.error(`oddex: failed to start: ${problem}`);
  else console.error('oddex: failed to start:', err);
  process.exit(1);
});

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
  const exchange = await startExchange(config);
  // Printed whatever the log level, so people and scripts always learn the port (ODDEX_PORT=0 picks one).
  if (exchange.ctx.config.logFormat === 'pretty') console.log(startupBanner(exchange.url, exchange.ctx.config).join('\n'));
  else console.log(`Oddex listening on ${exchange.url}`);
  const stop = (reason: string) => {
    exchange.ctx.log.info({ reason }, 'shutting down');
    exchange.close().then(
      () => process.exit(0),
      (err) => {
        exchange.ctx.log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  stopOnSignals(stop, { log: exchange.ctx.log, watchParent: process.env.npm_lifecycle_event === 'start' });
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

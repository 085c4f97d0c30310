// Entry point: `npm start [-- --port 8080 ...]`.
import { ConfigError, loadConfig } from './config.js';
import { startExchange } from './server.js';
import { startRealtimeNode } from './realtime-node.js';
import { startGateway } from './gateway.js';
import { startupBanner } from './startup-banner.js';
import { DataDirInUseError } from './store/sqlite/data-dir.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig(process.env, process.argv.slice(2));
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`oddex: ${err.message}`);
      process.exit(2);
    }
    throw err;
  }
  if (config.roles.length === 1 && config.roles[0] === 'realtime') {
    const node = await startRealtimeNode(config);
    console.log(`Oddex realtime node listening on ${node.url}`);
    const stopNode = () => void node.close().then(() => process.exit(0));
    process.once('SIGTERM', stopNode);
    process.once('SIGINT', stopNode);
    return;
  }
  if (config.roles.length === 1 && config.roles[0] === 'gateway') {
    const gateway = await startGateway(config);
    console.log(`Oddex gateway listening on ${gateway.url}`);
    const stopGateway = () => void gateway.close().then(() => process.exit(0));
    process.once('SIGTERM', stopGateway);
    process.once('SIGINT', stopGateway);
    return;
  }
  const exchange = await startExchange(config);
  // Printed whatever the log level, so people and scripts always learn the port (ODDEX_PORT=0 picks one).
  if (exchange.ctx.config.logFormat === 'pretty') console.log(startupBanner(exchange.url, exchange.ctx.config).join('\n'));
  else console.log(`Oddex listening on ${exchange.url}`);
  const stop = (signal: string) => {
    exchange.ctx.log.info({ signal }, 'shutting down');
    exchange.close().then(
      () => process.exit(0),
      (err) => {
        exchange.ctx.log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

main().catch((err) => {
  if (err instanceof DataDirInUseError) {
    console.error(`oddex: ${err.message}`);
    process.exit(1);
  }
  console.error('oddex: failed to start:', err);
  process.exit(1);
});

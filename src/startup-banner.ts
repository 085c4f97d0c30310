// What a person at a terminal reads once the exchange is up: where to go next, not a log line.
import { join } from 'node:path';
import type { Config } from './config.js';

export function startupBanner(url: string, config: Config): string[] {
  const adminToken = config.adminToken ? 'from ODDEX_ADMIN_TOKEN' : `in ${join(config.dataDir, 'admin-token')}`;
  const demo = !config.demo
    ? 'off'
    : config.demoLiquidity
      ? 'demo markets, demo market makers quoting them and a demo bettor'
      : 'demo markets (no demo liquidity)';
  const chain = config.chain === 'evm' ? `EVM contracts at ${config.evm.rpcUrl ?? 'the dev chain'}` : 'in-process ledger';
  return [
    `Oddex listening on ${url}`,
    `  Web page       ${url}/`,
    `  API docs       ${url}/docs`,
    `  Realtime       ${url.replace(/^http/, 'ws')}/connection/websocket`,
    `  Admin token    ${adminToken} (operator console: ${url}/#/console)`,
    `  Demo           ${demo}`,
    `  Chain          ${chain}`,
    `Requests are logged at debug (ODDEX_LOG_LEVEL=debug); warnings and errors show here. Ctrl-C stops.`,
  ];
}

// Runs the reference market maker against an exchange: `npm run market-maker` (see README.md beside this file).
import { WebSocket } from 'ws';
import { OddexClient, parseUnits, type Market } from '@oddex/sdk';
import { MarketMaker } from '../../src/demo/market-maker.js';
import { ParlayQuoter } from '../../src/demo/parlay-quoter.js';

function setting(name: string, fallback?: string): string {
  const v = process.env[name]?.trim() || fallback;
  if (v === undefined) {
    process.stderr.write(`set ${name} (see examples/market-maker/README.md)\n`);
    process.exit(2);
  }
  return v;
}

const client = new OddexClient({
  url: setting('ODDEX_URL', 'http://127.0.0.1:8080'),
  signer: setting('ODDEX_PRIVATE_KEY'),
  apiKey: setting('ODDEX_API_KEY'),
  WebSocket,
});
const chosen = setting('MM_MARKETS', 'all');
const fair = Number(setting('MM_FAIR', '0.5'));
const sizeUnits = setting('MM_SIZE', '20');

const maker = new MarketMaker({
  client,
  markets: async () => {
    const active = await client.allActiveMarkets({ onlyMainLine: true });
    if (chosen === 'all') return active;
    const wanted = new Set(chosen.split(',').map((h) => h.trim().toLowerCase()));
    return active.filter((m: Market) => wanted.has(m.marketHash));
  },
  fairProbability: () => fair,
  spread: Number(setting('MM_SPREAD', '0.04')),
  orderSize: parseUnits(sizeUnits, 6), // units of the 6-decimal base token
  heartbeatSeconds: Number(setting('MM_HEARTBEAT_SECONDS', '30')),
  log: (message, fields) => process.stdout.write(JSON.stringify({ time: new Date().toISOString(), message, ...fields }) + '\n'),
});

await maker.start();
// Parlay requests are priced from the same fair probability per leg.
const parlays =
  setting('MM_PARLAYS', 'on') === 'on'
    ? new ParlayQuoter({
        client,
        legProbability: () => fair,
        margin: Number(setting('MM_PARLAY_MARGIN', '0.03')),
        maxStake: parseUnits(setting('MM_PARLAY_MAX', '100'), 6),
        log: (message, fields) => process.stdout.write(JSON.stringify({ time: new Date().toISOString(), message, ...fields }) + '\n'),
      })
    : undefined;
await parlays?.start();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    parlays?.stop();
    void maker.stop({ cancelOrders: true }).finally(() => {
      client.close();
      process.exit(0);
    });
  });
}

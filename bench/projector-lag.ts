// How far the read models fall behind under fills at the most the exchange takes: the projector's lag (commands
// and seconds, sampled from /metrics every 250 ms) and the latency of a bettor's own GET /trades meanwhile, which
// waits for the read models (read-your-writes). Runs the real server as a child process.
// Usage: npx tsx bench/projector-lag.ts [fills = 6000] [clients = 48]
import { E18, USDC, newAccount, signedFill, signedOrder, startBenchExchange } from './exchange.js';
import { percentiles, fmt } from './lib.js';

const [fillCount = 6000, clients = 48] = process.argv.slice(2).map(Number);
const ex = await startBenchExchange({});
try {
  const maker = newAccount();
  const taker = newAccount();
  await ex.fund(maker);
  await ex.fund(taker);
  const market = ex.markets[0]!;
  for (let b = 0; b < Math.ceil((fillCount * 3) / 10 / 500) + 1; b++) {
    const orders = Array.from({ length: 500 }, () => signedOrder(maker, market, { odds: 40n * E18, size: 10n * USDC, outcomeOne: true }).body);
    await ex.post('/orders/new', { orders });
  }
  const fills = Array.from({ length: fillCount }, () => signedFill(taker, market, { stake: 3n * USDC, odds: 60n * E18, outcomeOne: false }));
  const metric = (text: string, name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  let maxLag = 0;
  let maxLagS = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const text = (await ex.request('GET', '/metrics')).body;
      maxLag = Math.max(maxLag, metric(text, 'oddex_projector_lag_positions'));
      maxLagS = Math.max(maxLagS, metric(text, 'oddex_projector_lag_seconds'));
      await new Promise((r) => setTimeout(r, 250));
    }
  })();
  const reads: number[] = [];
  let readFailures = 0;
  const reader = (async () => {
    while (sampling) {
      const t0 = performance.now();
      const r = await ex.request('GET', `/trades?bettor=${taker.address}&pageSize=1`);
      reads.push(performance.now() - t0);
      if (r.status !== 200) readFailures++;
      await new Promise((res) => setTimeout(res, 50));
    }
  })();
  let next = 0;
  let accepted = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < fillCount) {
        const r = await ex.post('/orders/fill/v2', fills[next++]);
        if (r.status === 200) accepted++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  sampling = false;
  await Promise.all([sampler, reader]);
  const p = percentiles(reads);
  console.log(
    `${accepted} of ${fillCount} fills in ${seconds.toFixed(1)} s (${Math.round(accepted / seconds)}/s) from ${clients} clients; ` +
      `projector lag at most ${maxLag} commands, ${maxLagS.toFixed(3)} s; own GET /trades meanwhile p50 ${fmt(p.p50)} p99 ${fmt(p.p99)} max ${fmt(p.max)}, ${readFailures} not 200`,
  );
} finally {
  await ex.close();
}

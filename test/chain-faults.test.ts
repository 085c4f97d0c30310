// A settlement chain that throws or hangs, and a wall clock that moves back, must not strand a fill or take
// the exchange down: fills stay PENDING, are retried with backoff, are counted in /metrics and logged.
import { afterEach, describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { defaultConfig } from '../src/config.js';
import { LocalChain, type ChainSink, type SettlementChain } from '../src/chain/settlement-chain.js';
import { startTestExchange, type TestExchange } from './helpers/server.js';
import { waitFor } from './helpers/bets.js';
import { E18, USDC, newWallet, signedFill, signedOrder } from './helpers/wallets.js';

const CONFIRM_MS = 100;
const overrides = {
  demo: true,
  chainConfirmationDelayMs: CONFIRM_MS,
  chainSubmit: { timeoutMs: 200, minBackoffMs: 50, maxBackoffMs: 200, maxBacklog: 10_000 },
  bettingDelay: { preGameMs: 0, inPlayMs: 0, inPlayBySportMs: {}, inPlayByLeagueMs: {} },
  rateLimits: { ...defaultConfig().rateLimits, enabled: false },
};

/** A log sink the test can read: pino writes one JSON line per record. */
function logLines() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n')) if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, stream };
}

/** A local chain that, while `broken` says so, throws on submit or never answers. */
function faultyChain(mode: 'throw' | 'hang', state: { broken: boolean; calls: number }) {
  return (sink: ChainSink): SettlementChain => {
    const local = new LocalChain(CONFIRM_MS, Date.now, sink);
    return {
      submit(fillHash, acceptedAt) {
        state.calls++;
        if (!state.broken) return local.submit(fillHash, acceptedAt);
        if (mode === 'throw') throw new Error('node unreachable');
        return new Promise<void>(() => {});
      },
      stop: () => local.stop(),
    };
  };
}

describe('settlement chain faults and clocks', () => {
  let ex: TestExchange | undefined;
  afterEach(async () => {
    await ex?.destroy();
    ex = undefined;
  });

  async function tradeOnce(exchange: TestExchange) {
    const maker = newWallet();
    const taker = newWallet();
    for (const w of [maker, taker]) await exchange.admin('POST', '/admin/faucet', { address: w.address, amount: (100n * USDC).toString() });
    const markets = (await exchange.get('/markets/active?pageSize=100&type=52')).body.data.markets;
    const market = markets.find((m: { liveEnabled: boolean }) => !m.liveEnabled).marketHash as string;
    const config = exchange.ctx.config;
    const order = await signedOrder(maker, config, { marketHash: market, totalBetSize: 50n * USDC, percentageOdds: 40n * E18, isMakerBettingOutcomeOne: true });
    expect((await exchange.post('/orders/new', { orders: [order.body] })).status).toBe(200);
    const fill = await signedFill(taker, config, { market, isTakerBettingOutcomeOne: false, stakeWei: 15n * USDC, desiredOdds: 60n * E18 });
    const filled = await exchange.post('/orders/fill/v2', fill);
    expect(filled.status).toBe(200);
    return { maker, taker, order, fillHash: filled.body.data.fillHash as string };
  }
  const statuses = async (exchange: TestExchange, orderHash: string) =>
    ((await exchange.get(`/trades/orders?orderHashes=${orderHash}`)).body.data.trades as { tradeStatus: string }[]).map((t) => t.tradeStatus);
  const metric = async (exchange: TestExchange, name: string) => {
    const text = (await exchange.get('/metrics')).body as string;
    return Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1]);
  };

  for (const mode of ['throw', 'hang'] as const) {
    it(`keeps a fill PENDING while the chain ${mode === 'throw' ? 'throws' : 'does not answer'}, retries it, and settles it once the chain is back`, async () => {
      const state = { broken: true, calls: 0 };
      const log = logLines();
      ex = await startTestExchange({ ...overrides, logLevel: 'warn' }, { createChain: faultyChain(mode, state), logDestination: log.stream });
      const { order, fillHash, taker } = await tradeOnce(ex);

      await waitFor(async () => state.calls, (n) => n >= 3);
      expect(state.calls).toBeGreaterThanOrEqual(3);
      // The exchange keeps answering: reads, health and the pending fill as it stands.
      expect(await statuses(ex, order.hash)).toEqual(['PENDING', 'PENDING']);
      expect((await ex.get('/health/ready')).status).toBe(200);
      expect((await ex.get(`/balances/${taker.address}`)).body.data).toMatchObject({ balance: '100000000', pendingTakerStake: '15000000' });
      expect(await metric(ex, 'oddex_chain_submit_failures_total')).toBeGreaterThanOrEqual(2);
      expect(await metric(ex, 'oddex_chain_submit_backlog')).toBe(1);
      const warning = log.lines.find((l) => l.fillHash === fillHash);
      expect(warning).toMatchObject({ level: 40, attempt: 1, retryInMs: 50, msg: expect.stringContaining('retried') });

      state.broken = false;
      const settled = await waitFor(() => statuses(ex!, order.hash), (s) => s.every((x) => x === 'SUCCESS'));
      expect(settled).toEqual(['SUCCESS', 'SUCCESS']);
      expect(await metric(ex, 'oddex_chain_submit_backlog')).toBe(0);
      expect((await ex.get(`/balances/${taker.address}`)).body.data).toMatchObject({ balance: '85000000', escrowed: '15000000', pendingTakerStake: '0' });
    });
  }

  it('starts and keeps answering when resubmitting pending fills at start-up throws', async () => {
    ex = await startTestExchange({ ...overrides, chainConfirmationDelayMs: 3_600_000 });
    const { order } = await tradeOnce(ex);
    await ex.close();
    const state = { broken: true, calls: 0 };
    ex = await startTestExchange(overrides, { dataDir: ex.dataDir, createChain: faultyChain('throw', state) });
    expect(state.calls).toBeGreaterThanOrEqual(1);
    expect((await ex.get('/health/ready')).status).toBe(200);
    expect(await statuses(ex, order.hash)).toEqual(['PENDING', 'PENDING']);
    state.broken = false;
    expect(await waitFor(() => statuses(ex!, order.hash), (s) => s[0] === 'SUCCESS')).toEqual(['SUCCESS', 'SUCCESS']);
  });

  it('confirms a pending fill within one confirmation delay after a restart with the clock moved back an hour', async () => {
    ex = await startTestExchange({ ...overrides, chainConfirmationDelayMs: 3_600_000 });
    const { order } = await tradeOnce(ex);
    await ex.close();
    const hourAgo = () => Date.now() - 3_600_000;
    ex = await startTestExchange({ ...overrides, chainConfirmationDelayMs: 500 }, { dataDir: ex.dataDir, now: hourAgo });
    // Seconds, not the hour the clock moved: room for a busy machine.
    expect(await waitFor(() => statuses(ex!, order.hash), (s) => s[0] === 'SUCCESS', 10_000)).toEqual(['SUCCESS', 'SUCCESS']);
  });
});

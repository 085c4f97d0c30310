// kill -9 in the middle of a stream of orders and fills: every acknowledged change survives, funds are conserved.
import { describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../src/config.js';
import { crashSuite, type ChildExchange } from './helpers/process.js';
import { E18, USDC, newWallet, signedFill, signedOrder } from './helpers/wallets.js';

const ADMIN = 'crash-test-admin';

describe('crash recovery', () => {
  const suite = crashSuite('crash', ADMIN, 50);
  let running: ChildExchange | undefined;

  it('keeps every acknowledged order and fill across SIGKILL and conserves funds', async () => {
    running = await suite.spawn();
    const { call } = suite;
    // Orders name this deployment's executor, generated on its first start.
    const config = loadConfig({ ODDEX_EXECUTOR_ADDRESS: (await call('GET', '/metadata')).body.data.executorAddress }, []);
    const markets = (await call('GET', '/markets/active?type=52&pageSize=100')).body.data.markets.filter(
      (m: { liveEnabled: boolean }) => !m.liveEnabled,
    );
    const makers = [newWallet(), newWallet()];
    const takers = [newWallet(), newWallet()];
    const minted = 4n * 1000n * USDC;
    for (const w of [...makers, ...takers]) await call('POST', '/admin/faucet', { address: w.address, amount: (1000n * USDC).toString() }, true);

    // Pre-sign a stream of orders and fills, then fire them without waiting and kill mid-stream.
    const orders = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        signedOrder(makers[i % 2]!, config, {
          marketHash: markets[i % 5].marketHash,
          totalBetSize: 10n * USDC,
          percentageOdds: BigInt(40 + (i % 8)) * E18,
          isMakerBettingOutcomeOne: true,
        }),
      ),
    );
    const fills = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        signedFill(takers[i % 2]!, config, { market: markets[i % 5].marketHash, isTakerBettingOutcomeOne: false, stakeWei: 3n * USDC, desiredOdds: 52n * E18, oddsSlippage: 10 }),
      ),
    );
    const ackedOrders: string[] = [];
    const ackedFills: string[] = [];
    const inflight: Promise<unknown>[] = [];
    for (let i = 0; i < orders.length; i++) {
      inflight.push(
        call('POST', '/orders/new', { orders: [orders[i]!.body] }).then(
          (r) => r.body.data?.statuses[orders[i]!.hash] === 'OK' && ackedOrders.push(orders[i]!.hash),
          () => undefined,
        ),
      );
      if (i % 2 === 1) {
        inflight.push(
          call('POST', '/orders/fill/v2', fills[i >> 1]).then((r) => r.status === 200 && ackedFills.push(r.body.data.fillHash), () => undefined),
        );
      }
      if (i === 40) running.child.kill('SIGKILL');
      await sleep(2);
    }
    await Promise.allSettled(inflight);
    await running.exited;
    // The kill landed mid-stream: some requests were acknowledged, the later ones never were.
    expect(ackedOrders.length).toBeGreaterThan(5);
    expect(ackedOrders.length).toBeLessThan(orders.length);
    expect(ackedFills.length).toBeGreaterThan(0);

    running = await suite.spawn();
    const stored = (await call('GET', `/orders?orderHashes=${ackedOrders.join(',')}&perPage=1000`)).body.data;
    expect(stored.map((o: { orderHash: string }) => o.orderHash).sort()).toEqual([...ackedOrders].sort());
    for (const fillHash of ackedFills) {
      const trades = (await call('GET', `/trades?startDate=0&pageSize=300`)).body.data.trades.filter((t: { fillHash: string }) => t.fillHash === fillHash);
      expect(trades.length).toBeGreaterThanOrEqual(2);
    }
    // Pending fills confirm after the restart; then every wei minted is in a wallet or in escrow.
    await sleep(300);
    let total = 0n;
    for (const w of [...makers, ...takers]) {
      const b = (await call('GET', `/balances/${w.address}`)).body.data;
      total += BigInt(b.balance) + BigInt(b.escrowed);
    }
    expect(total).toBe(minted);

    // The read models after the crash equal a fresh rebuild from the journal: delete their database and start again.
    const readSide = async () => ({
      trades: (await call('GET', '/trades?startDate=0&pageSize=300')).body.data,
      orders: await Promise.all(makers.map(async (m) => (await call('GET', `/orders?maker=${m.address}&perPage=1000`)).body.data)),
      consolidated: await Promise.all(
        takers.map(async (t) => (await call('GET', `/trades/consolidated?bettor=${t.address}&settled=false&page=0&perPage=100&sortAsc=true`)).body.data),
      ),
      statements: await Promise.all(takers.map(async (t) => (await call('GET', `/account/statement?bettor=${t.address}`)).body.data)),
    });
    const afterCrash = await readSide();
    expect(afterCrash.trades.trades.length).toBeGreaterThan(0);
    running.child.kill('SIGTERM');
    await running.exited;
    for (const f of readdirSync(suite.dataDir).filter((n) => n.startsWith('oddex.read-models.sqlite'))) rmSync(join(suite.dataDir, f));
    running = await suite.spawn();
    expect(await readSide()).toEqual(afterCrash);
    running.child.kill('SIGTERM');
    await running.exited;
  }, 120_000);
});

// The read models written by a projector process of its own (ODDEX_ROLES=projector) beside a sequencer that does not
// project: every acknowledged write reaches the reads; a second projector stands by; the projector and the sequencer
// ride through `pg_ctl stop -m immediate` of the database and go on by themselves once it is back, with every
// acknowledged order read and funds exact to the wei; a projector that stops cleanly hands over at once.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PrivateKeyAccount } from 'viem';
import { loadConfig, type Config } from '../src/config.js';
import { spawnExchange, spawnWatched, type ChildExchange, type WatchedExchange } from './helpers/process.js';
import { noPostgres, postgresForSuite, postgresSuite } from './helpers/postgres.js';
import { natsForSuite } from './helpers/nats.js';
import { waitFor } from './helpers/realtime.js';
import { E18, USDC, newWallet, signedOrder } from './helpers/wallets.js';
import { call } from './helpers/positioned-call.js';

const ADMIN = 'projector-process-test-admin';
const PROJECTING = /projecting the read models/;

describe.skipIf(noPostgres)(postgresSuite('the read models written by a projector process of its own'), () => {
  const postgres = postgresForSuite();
  const nats = natsForSuite();
  const dirs: string[] = [];
  let common: Record<string, string>;
  let sequencer: ChildExchange;
  const projectors: WatchedExchange[] = [];
  let config: Config;
  let markets: string[];
  let position = 0;
  const admin = { authorization: `Bearer ${ADMIN}` };
  const wallets: PrivateKeyAccount[] = [];
  let minted = 0n;

  const write = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const r = await call(sequencer.url, method, path, body, headers);
    if (r.position > position) position = r.position;
    return r;
  };
  /** A read that must see every write acknowledged so far. */
  const read = (path: string) => call(sequencer.url, 'GET', path, undefined, { 'oddex-min-position': String(position) });
  const funded = async () => {
    const w = newWallet();
    expect((await write('POST', '/admin/faucet', { address: w.address, amount: (1000n * USDC).toString() }, admin)).status).toBe(200);
    minted += 1000n * USDC;
    wallets.push(w);
    return w;
  };
  /** Posts an order; its hash once acknowledged, undefined if refused. */
  const post = async (maker: PrivateKeyAccount, i: number) => {
    const o = await signedOrder(maker, config, { marketHash: markets[i % markets.length]!, totalBetSize: 10n * USDC, percentageOdds: BigInt(40 + (i % 8)) * E18, isMakerBettingOutcomeOne: true });
    const r = await write('POST', '/orders/new', { orders: [o.body] });
    return r.status === 200 && r.body.data.statuses[o.hash] === 'OK' ? o.hash : undefined;
  };
  /** The maker's open orders as a read that waits for every acknowledged write sees them; undefined if refused. */
  const openOrders = async (maker: PrivateKeyAccount) => {
    const r = await read(`/orders?maker=${maker.address}`);
    return r.status === 200 ? (r.body.data as { orderHash: string }[]).map((o) => o.orderHash).sort() : undefined;
  };
  const heldByAll = async () => {
    let total = 0n;
    for (const w of wallets) {
      const b = (await read(`/balances/${w.address}`)).body.data;
      total += BigInt(b.balance) + BigInt(b.escrowed);
    }
    return total;
  };
  const startProjector = () => {
    const p = spawnWatched({ ...common, ODDEX_ROLES: 'projector' });
    projectors.push(p);
    return p;
  };

  beforeAll(async () => {
    common = {
      ODDEX_DATABASE_URL: await postgres().createDatabase(),
      ODDEX_NATS_URL: nats().url,
      ODDEX_ADMIN_TOKEN: ADMIN,
      ODDEX_DEMO: 'true',
      ODDEX_DELAY_PREGAME_MS: '0',
      ODDEX_RATE_LIMITS: 'false',
    };
    const dataDir = mkdtempSync(join(tmpdir(), 'oddex-projector-'));
    dirs.push(dataDir);
    sequencer = await spawnExchange({ ...common, ODDEX_DATA_DIR: dataDir, ODDEX_ROLES: 'sequencer,settlement' });
    config = loadConfig({ ODDEX_EXECUTOR_ADDRESS: (await call(sequencer.url, 'GET', '/metadata')).body.data.executorAddress }, []);
    markets = (await call(sequencer.url, 'GET', '/markets/active?type=52&pageSize=100')).body.data.markets
      .filter((m: { liveEnabled: boolean }) => !m.liveEnabled)
      .map((m: { marketHash: string }) => m.marketHash)
      .slice(0, 4);
  }, 120_000);

  afterAll(async () => {
    for (const p of projectors) p.child.kill('SIGKILL');
    sequencer?.child.kill('SIGKILL');
    await Promise.all([sequencer?.exited, ...projectors.map((p) => p.exited)]);
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }, 30_000);

  it('projects nothing in the sequencer: reads wait for a projector process, which catches up; a second one stands by', async () => {
    const maker = await funded();
    const before = await post(maker, 0);
    // Nobody projects yet: a read that must see the order answers that the read side is behind.
    const behind = await read(`/orders?maker=${maker.address}`);
    expect([behind.status, behind.body.errorCode]).toEqual([503, 'READ_MODEL_BEHIND']);
    const first = startProjector();
    await first.line(PROJECTING);
    expect(await openOrders(maker)).toEqual([before]);
    const second = startProjector();
    await second.line(/standing by: another projector holds the projector lock/);
    const after = await post(maker, 1);
    expect(await openOrders(maker)).toEqual([before, after].sort());
    expect(second.lines(PROJECTING)).toEqual([]);
  }, 60_000);

  it('rides through pg_ctl stop -m immediate under a stream of orders: every acknowledged order is read after, funds exact', async () => {
    const maker = await funded();
    const acknowledged: string[] = [];
    let refused = 0;
    const metricsWhileDown: { status: number; text: string }[] = [];
    for (let i = 0; i < 60; i++) {
      if (i === 20) await postgres().crash();
      if (i === 30) {
        // The database is down: each projector still answers /metrics (its lock figure, its process), and says the
        // positions it cannot read are unknown (NaN; prom-client writes it Nan) rather than failing the whole scrape.
        for (const p of projectors) {
          const url = /listening on (http:\/\/[\d.]+:\d+)/.exec(await p.line(/listening on/))![1]!;
          const res = await fetch(`${url}/metrics`);
          metricsWhileDown.push({ status: res.status, text: await res.text() });
        }
      }
      if (i === 35) await postgres().start();
      const hash = await post(maker, i).catch(() => undefined);
      if (hash) acknowledged.push(hash);
      else refused++;
      await sleep(i >= 20 && i < 35 ? 100 : 5);
    }
    expect(metricsWhileDown.map((m) => m.status)).toEqual([200, 200]);
    for (const m of metricsWhileDown) {
      expect(m.text).toMatch(/^oddex_projector_active [01]$/m);
      expect(m.text).toMatch(/^oddex_projector_position nan$/im);
      expect(m.text).toMatch(/^oddex_projector_lag_positions nan$/im);
      expect(m.text).toMatch(/^oddex_process_\w*cpu_seconds_total /m);
    }
    // Writes were refused while the database was down, and are taken again now.
    expect(refused).toBeGreaterThan(0);
    expect(acknowledged.length).toBeGreaterThan(20);
    let again: string | undefined;
    await waitFor(async () => (again = await post(maker, 60).catch(() => undefined)) !== undefined, 20_000, 'writes taken again');
    acknowledged.push(again!);
    await waitFor(async () => (await openOrders(maker)) !== undefined, 20_000, 'the read models caught up');
    // Every acknowledged order (one whose reply was lost in the crash may be there too, never one missing).
    const orders = new Set((await openOrders(maker))!);
    expect(acknowledged.filter((h) => !orders.has(h))).toEqual([]);
    expect(await heldByAll()).toBe(minted);
  }, 120_000);

  it('hands over at once when the projecting one stops cleanly', async () => {
    // The one projecting now (both lost the lock in the crash, and one took it again) is the one ready.
    const ready = async (p: WatchedExchange) => {
      const url = /listening on (http:\/\/[\d.]+:\d+)/.exec(await p.line(/listening on/))![1]!;
      return (await fetch(`${url}/health/ready`)).status === 200;
    };
    const [first, second] = projectors as [WatchedExchange, WatchedExchange];
    await waitFor(async () => (await ready(first)) !== (await ready(second)), 10_000, 'one projector projecting');
    const active = (await ready(first)) ? first : second;
    const other = active === first ? second : first;
    const taken = other.lines(PROJECTING).length;
    active.child.kill('SIGTERM');
    await active.exited;
    await waitFor(() => other.lines(PROJECTING).length > taken, 10_000, 'the standby takes the lock');
    const maker = await funded();
    const hash = await post(maker, 7);
    expect(await openOrders(maker)).toEqual([hash]);
  }, 60_000);
});

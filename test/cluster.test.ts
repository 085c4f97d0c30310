// `npm run cluster` as an operator starts it: with the settings an operator gives it, a first port (ODDEX_PORT), from
// which its processes listen on consecutive ports, and a database URL with a password (PostgreSQL is started here and
// given to it), which it prints masked; Redis and NATS it starts itself from their Debian binaries. Then a sequencer
// and its hot standby, a projector and its standby, a settlement process and its standby, two gateways and two
// realtime nodes, each its own process. Trading
// flows go through gateway 1 with reads on gateway 2 (fills, capital-efficiency refunds, settlement and a quarter-line
// bet to the wei, a cancel, a heartbeat); the read models are written by the projector process alone, and its
// standby takes over after kill -9; publications reach subscribers on both realtime nodes; after kill -9 of the
// sequencer the standby answers within 5 s, every acknowledged order is there, funds are exact and publications go
// on without a gap. One cluster serves every test here (test/cluster-settings.test.ts keeps the settings' checks that
// need none).
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { PublicationContext, SubscribedContext } from 'centrifuge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PrivateKeyAccount } from 'viem';
import { loadConfig, type Config } from '../src/config.js';
import { noPostgres, postgresSuite, startPostgres, type TestPostgres } from './helpers/postgres.js';
import { CLUSTER_PROCESSES } from '../src/cluster/settings.js';
import { centrifugeClient, waitFor } from './helpers/realtime.js';
import { E18, USDC, newWallet, signedCancel, signedFill, signedOrder } from './helpers/wallets.js';
import { call } from './helpers/positioned-call.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ADMIN = 'cluster-test-admin';
const FUNDS = 1000n * USDC;
const PASSWORD = 'cluster-db-secret-4711';

const portFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });

/** The first of `n` consecutive loopback ports free now, searched from 19500 up. */
async function freeBlock(n: number): Promise<number> {
  for (let base = 19500; base + n < 65535; base += n) {
    let free = true;
    for (let p = base; free && p < base + n; p++) free = await portFree(p);
    if (free) return base;
  }
  throw new Error(`no ${n} consecutive free ports`);
}

/**
 * What the processes' table the cluster prints says: `  <name, 12 wide> <where>  (... pid N)`. Read from the table
 * an operator reads, so that every row it is given to read is checked.
 */
function clusterFromTable(printed: string): Cluster {
  const rows = new Map<string, string>();
  for (const line of printed.split('\n')) {
    const m = /^ {2}(\S.{11}) (.*)$/.exec(line);
    if (m) rows.set(m[1]!.trim(), m[2]!);
  }
  const row = (name: string) => {
    const text = rows.get(name);
    if (text === undefined) throw new Error(`the cluster printed no ${name} row: ${printed}`);
    const pid = /pid (\d+)\)$/.exec(text)?.[1];
    return { url: text.split(/\s+/)[0]!.replace(/\/metrics$/, ''), pid: pid === undefined ? NaN : Number(pid) };
  };
  return {
    sequencer: row('sequencer'),
    standby: { pid: row('standby').pid },
    projectors: [row('projector'), row('projector 2')],
    gateways: [row('gateway 1'), row('gateway 2')],
    realtime: [row('realtime 1'), row('realtime 2')],
    logs: row('logs').url,
  };
}

interface Cluster {
  sequencer: { url: string; pid: number };
  standby: { pid: number };
  projectors: { url: string; pid: number }[];
  gateways: { url: string; pid: number }[];
  realtime: { url: string; pid: number }[];
  logs: string;
}

describe.skipIf(noPostgres)(postgresSuite('npm run cluster: gateways, a sequencer and its standby, realtime nodes'), () => {
  let child: ChildProcess;
  let cluster: Cluster;
  /** The first of the cluster's ports (ODDEX_PORT); PostgreSQL listens on the one after its ten. */
  let base = 0;
  let postgres: TestPostgres | undefined;
  /** What the cluster printed (stdout and stderr) until it was running. */
  const output: string[] = [];
  let config: Config;
  let g1 = '';
  let g2 = '';
  /** The sequencer's own API (the admin routes); after a takeover, the standby's. */
  let writer = '';
  /** The newest position a write was acknowledged at: reads on the other gateway name it. */
  let position = 0;
  let minted = 0n;
  const wallets: PrivateKeyAccount[] = [];
  const admin = { authorization: `Bearer ${ADMIN}` };

  const write = async (base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const r = await call(base, method, path, body, headers);
    if (r.position > position) position = r.position;
    return r;
  };
  /** A read that sees every write acknowledged so far, wherever it was made. */
  const read = (base: string, path: string) => call(base, 'GET', path, undefined, { 'oddex-min-position': String(position) });
  const adminOk = async (path: string, body: unknown) => {
    const r = await write(writer, 'POST', path, body, admin);
    expect([path, r.status, r.body.errorCode]).toEqual([path, 200, undefined]);
    return r.body.data;
  };
  const funded = async (amount = FUNDS) => {
    const w = newWallet();
    await adminOk('/admin/faucet', { address: w.address, amount: amount.toString() });
    minted += amount;
    wallets.push(w);
    return w;
  };
  const balance = async (w: PrivateKeyAccount, base = g2) => {
    const b = (await read(base, `/balances/${w.address}`)).body.data;
    return [b.balance as string, b.escrowed as string];
  };
  const heldByAll = async () => {
    let total = 0n;
    for (const w of wallets) {
      const [b, e] = await balance(w);
      total += BigInt(b!) + BigInt(e!);
    }
    return total;
  };
  /** Waits until both gateways know the market (they read the catalogue again when it changes). */
  const known = async (marketHash: string) => {
    for (const g of [g1, g2]) await waitFor(async () => (await call(g, 'GET', `/markets/find?marketHashes=${marketHash}`)).body.data?.length === 1, 5000, 'the gateway learns the market');
  };
  const post = async (base: string, maker: PrivateKeyAccount, marketHash: string, percentageOdds: bigint, isMakerBettingOutcomeOne: boolean, totalBetSize = 30n * USDC) => {
    const o = await signedOrder(maker, config, { marketHash, totalBetSize, percentageOdds, isMakerBettingOutcomeOne });
    const r = await write(base, 'POST', '/orders/new', { orders: [o.body] });
    expect([r.status, r.body.data?.statuses]).toEqual([200, { [o.hash]: 'OK' }]);
    return o.hash;
  };
  const fill = async (base: string, taker: PrivateKeyAccount, market: string, isTakerBettingOutcomeOne: boolean, stakeWei: bigint, desiredOdds: bigint) => {
    const r = await write(base, 'POST', '/orders/fill/v2', await signedFill(taker, config, { market, isTakerBettingOutcomeOne, stakeWei, desiredOdds }));
    expect([r.status, r.body.data?.totalFilled]).toEqual([200, stakeWei.toString()]);
    // The local chain confirms after ODDEX_CHAIN_CONFIRM_MS; the confirmation is journaled too.
    const confirmed = async () => {
      const trades = (await read(g2, `/trades?bettor=${taker.address}`)).body.data?.trades as { fillHash: string; tradeStatus: string }[] | undefined;
      return trades?.some((t) => t.fillHash === r.body.data.fillHash && t.tradeStatus === 'SUCCESS');
    };
    await waitFor(confirmed, 5000, 'the fill confirmed');
    return r.body.data.fillHash as string;
  };
  const fixture = async (league: { leagueId: number; teamOneId: number; teamTwoId: number }) =>
    (await adminOk('/admin/fixtures', { ...league, gameTime: Math.floor(Date.now() / 1000) + 3600 })).eventId as string;
  let league: { leagueId: number; teamOneId: number; teamTwoId: number };

  beforeAll(async () => {
    // Ten for the cluster's processes, then PostgreSQL.
    base = await freeBlock(CLUSTER_PROCESSES.length + 1);
    postgres = await startPostgres({ maxConnections: 150, port: base + 10 });
    await postgres.createDatabase('oddex');
    child = spawn(process.execPath, ['--import', 'tsx', 'src/cluster/main.ts'], {
      cwd: ROOT,
      env: {
        ...process.env,
        // The local server trusts loopback connections: the password is not checked, only carried as given.
        ODDEX_DATABASE_URL: `postgres://postgres:${PASSWORD}@127.0.0.1:${postgres.port}/oddex`,
        ODDEX_PORT: String(base),
        ODDEX_ADMIN_TOKEN: ADMIN,
        ODDEX_DEMO: 'true',
        ODDEX_DEMO_LIQUIDITY: 'false',
        ODDEX_RATE_LIMITS: 'false',
        ODDEX_DELAY_PREGAME_MS: '0',
        ODDEX_CHAIN_CONFIRM_MS: '50',
        ODDEX_LOG_LEVEL: 'info',
        ODDEX_SEQUENCER_RETRY_MS: '20000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stderr!.on('data', (d) => {
      output.push(String(d));
      process.stderr.write(d);
    });
    cluster = await new Promise<Cluster>((resolve, reject) => {
      createInterface({ input: child.stdout! }).on('line', (line) => {
        output.push(line);
        if (line.startsWith('Ctrl-C stops')) resolve(clusterFromTable(output.join('\n')));
      });
      child.once('exit', (code) => reject(new Error(`the cluster exited (${code}) before it was running: ${output.join('\n')}`)));
    });
    [g1, g2] = cluster.gateways.map((g) => g.url) as [string, string];
    writer = cluster.sequencer.url;
    const metadata = (await call(g1, 'GET', '/metadata')).body.data;
    config = loadConfig({ ODDEX_EXECUTOR_ADDRESS: metadata.executorAddress }, []);
    const sport = await adminOk('/admin/sports', { label: 'Cluster Ball' });
    const l = await adminOk('/admin/leagues', { sportId: sport.sportId, label: 'Cluster League' });
    const one = await adminOk('/admin/teams', { sportId: sport.sportId, name: 'Alpha FC' });
    const two = await adminOk('/admin/teams', { sportId: sport.sportId, name: 'Beta FC' });
    league = { leagueId: l.leagueId, teamOneId: one.id, teamTwoId: two.id };
  }, 180_000);

  afterAll(async () => {
    try {
      if (!child || child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
      // The processes' logs outlive the stop (the data dirs do not).
      expect(readdirSync(cluster.logs)).toContain('gateway-1.log');
      rmSync(cluster.logs, { recursive: true, force: true });
    } finally {
      await postgres?.stop();
    }
  }, 60_000);

  it('listens on consecutive ports from ODDEX_PORT, and prints the database URL with its password masked', async () => {
    const printed = output.join('\n');
    expect(printed).not.toContain(PASSWORD);
    expect(printed).toContain(`postgres://postgres:***@127.0.0.1:${base + 10}/oddex`);
    const at = (what: string) => new RegExp(`^\\s+${what}\\s+(\\S+)`, 'm').exec(printed)?.[1];
    expect([at('sequencer'), at('gateway 1'), at('gateway 2'), at('realtime 2')]).toEqual([
      `http://127.0.0.1:${base}`,
      `http://127.0.0.1:${base + 6}`,
      `http://127.0.0.1:${base + 7}`,
      `ws://127.0.0.1:${base + 9}/connection/websocket`,
    ]);
    for (const port of [base, base + 2, base + 4, base + 6, base + 7, base + 8]) {
      expect([port, (await fetch(`http://127.0.0.1:${port}/health`)).status]).toEqual([port, 200]);
    }
  });

  it('fills, refunds and settles through gateway 1 with reads on gateway 2, to the wei; cancels and heartbeats too', async () => {
    const [maker, taker] = [await funded(), await funded()];
    const eventId = await fixture(league);
    const [market] = (await adminOk('/admin/markets', { exchangeEventId: eventId, type: 52 })) as { marketHash: string }[];
    const hash = market!.marketHash;
    await known(hash);
    const w = (x: bigint) => x.toString();

    // Offsetting positions, fill by fill (the refunds scenario of test/refunds.test.ts, settled as outcome one).
    await post(g1, maker, hash, 50n * E18, true);
    await fill(g1, taker, hash, false, 20n * USDC, 50n * E18);
    expect([await balance(maker), await balance(taker)]).toEqual([[w(FUNDS - 20n * USDC), '20000000'], [w(FUNDS - 20n * USDC), '20000000']]);
    await post(g1, maker, hash, 40n * E18, false);
    await fill(g1, taker, hash, true, 15n * USDC, 60n * E18);
    expect([await balance(maker), await balance(taker)]).toEqual([[w(FUNDS - 5n * USDC), '5000000'], [w(FUNDS - 10n * USDC), '10000000']]);
    await fill(g1, taker, hash, true, 7_500_001n, 60n * E18);
    expect([await balance(maker), await balance(taker)]).toEqual([[w(FUNDS), '0'], [w(FUNDS - 5n * USDC), '5000000']]);
    const refunds = (await read(g2, `/trades/portfolio/refunds?bettor=${taker.address}&marketHash=${hash}&sortAsc=true&page=0&perPage=10`)).body.data;
    expect(JSON.stringify(refunds)).toContain('"totalRefundedBetTimeValue":37.500001');

    await adminOk(`/admin/markets/${hash}/report`, { outcome: 1 });
    await waitFor(async () => (await balance(maker))[1] === '0' && (await balance(taker))[1] === '0', 5000, 'settled');
    expect([await balance(maker), await balance(taker)]).toEqual([[w(FUNDS + 5n * USDC), '0'], [w(FUNDS - 5n * USDC), '0']]);
    const settled = (await read(g2, `/trades?bettor=${taker.address}&settled=true`)).body.data.trades;
    expect(settled.map((t: { outcome: number; settled: boolean }) => [t.settled, t.outcome])).toEqual([[true, 1], [true, 1], [true, 1]]);

    // A cancel through gateway 2 of an order posted through gateway 1.
    const other = (await adminOk('/admin/markets', { exchangeEventId: await fixture(league), type: 52 }))[0].marketHash as string;
    await known(other);
    const resting = await post(g1, maker, other, 45n * E18, true);
    const cancel = await write(g2, 'POST', '/orders/cancel/v2', await signedCancel(maker, config, 'v2', { orderHashes: [resting] }));
    expect(cancel.body.data).toMatchObject({ cancelledCount: 1 });
    expect((await read(g1, `/orders?orderHashes=${resting}`)).body.data.map((o: { orderStatus: string }) => o.orderStatus)).toEqual(['CANCELLED']);

    // A heartbeat with a key issued on the sequencer's process.
    const key = (await adminOk('/admin/api-keys', { address: maker.address })).apiKey as string;
    const beat = await waitFor(async () => {
      const r = await call(g1, 'POST', '/heartbeat', { requestor: maker.address, timeoutSeconds: 0 }, { 'x-api-key': key });
      return r.status === 200 ? r : undefined;
    }, 5000, 'the key reaches the gateway');
    expect(beat.body.data).toMatchObject({ requestor: maker.address, timeoutSeconds: 0 });
    expect(await heldByAll()).toBe(minted);
  }, 90_000);

  it('settles a quarter-line bet made through the gateways on both its legs, to the wei', async () => {
    const [maker, taker] = [await funded(), await funded()];
    const eventId = await fixture(league);
    const [parent, lower, higher] = ((await adminOk('/admin/markets', { exchangeEventId: eventId, type: 3, line: -0.75 })) as { marketHash: string }[]).map((m) => m.marketHash);
    await known(parent!);
    await post(g2, maker, parent!, 40n * E18, false, 20n * USDC);
    await fill(g1, taker, parent!, true, 10_000_001n, 60n * E18);
    await adminOk(`/admin/fixtures/${eventId}/result`, { teamOneScore: 3, teamTwoScore: 1 });
    // Won on both legs (test/consolidated.test.ts's win/win): the taker is paid 8_333_335 + 8_333_333.
    await waitFor(async () => (await balance(taker))[1] === '0', 5000, 'settled');
    expect(await balance(taker)).toEqual([(FUNDS - 10_000_001n + 16_666_668n).toString(), '0']);
    expect(await balance(maker)).toEqual([(FUNDS - 6_666_667n).toString(), '0']);
    const trades = (await read(g2, `/trades?bettor=${taker.address}`)).body.data.trades;
    expect(trades.map((t: { marketHash: string; stake: string }) => [t.marketHash, t.stake]).sort()).toEqual([[lower, '5000001'], [higher, '5000000']].sort());
    expect(await heldByAll()).toBe(minted);
  }, 60_000);

  it('writes the read models in the projector process alone; after kill -9 of it the standing-by projector goes on, and reads on the gateways see every acknowledged write', async () => {
    const [p1, p2] = cluster.projectors as [{ url: string; pid: number }, { url: string; pid: number }];
    const figure = async (url: string, name: string) => {
      const text = await (await fetch(`${url}/metrics`)).text();
      const line = text.split('\n').find((l) => l.startsWith(`${name} `));
      return line === undefined ? undefined : Number(line.split(' ')[1]);
    };
    const ready = async (url: string) => (await fetch(`${url}/health/ready`)).status;
    expect([await figure(p1.url, 'oddex_projector_active'), await ready(p1.url)]).toEqual([1, 200]);
    expect([await figure(p2.url, 'oddex_projector_active'), await ready(p2.url)]).toEqual([0, 503]);
    const [maker, taker] = [await funded(), await funded()];
    const market = (await adminOk('/admin/markets', { exchangeEventId: await fixture(league), type: 52 }))[0].marketHash as string;
    await known(market);
    const before = await post(g1, maker, market, 50n * E18, true);
    expect((await read(g2, `/orders?maker=${maker.address}`)).body.data.map((o: { orderHash: string }) => o.orderHash)).toEqual([before]);
    expect(await figure(p1.url, 'oddex_projector_position')).toBeGreaterThanOrEqual(position);

    // Paused, the projector holds its lock and projects nothing: nobody else writes the read models, so a read that
    // must see a newer write answers that the read side is behind rather than show older state.
    process.kill(p1.pid, 'SIGSTOP');
    try {
      const during = await post(g1, maker, market, 51n * E18, true);
      const behind = await read(g2, `/orders?maker=${maker.address}`);
      expect([behind.status, behind.body.errorCode]).toEqual([503, 'READ_MODEL_BEHIND']);
      // So does an account's read naming no position on the gateway that did not take the write.
      const unnamed = await call(g2, 'GET', `/orders?maker=${maker.address}`);
      expect([unnamed.status, unnamed.body.errorCode]).toEqual([503, 'READ_MODEL_BEHIND']);
      expect(await figure(p2.url, 'oddex_projector_active')).toBe(0);
      // Killed, its session ends: the standby takes the lock and projects from the checkpoint.
      process.kill(p1.pid, 'SIGKILL');
      const killedAt = Date.now();
      await waitFor(async () => (await read(g2, `/orders?maker=${maker.address}`)).status === 200, 10_000, 'the standby projector catches up');
      console.log(`cluster projector takeover: reads caught up ${Date.now() - killedAt} ms after kill -9 of the projector`);
      expect([await figure(p2.url, 'oddex_projector_active'), await ready(p2.url)]).toEqual([1, 200]);
      const orders = (await read(g2, `/orders?maker=${maker.address}`)).body.data.map((o: { orderHash: string }) => o.orderHash);
      expect(orders.sort()).toEqual([before, during].sort());
      // Trading goes on, read on either gateway.
      await fill(g2, taker, market, false, 3n * USDC, 50n * E18);
      expect((await read(g1, `/trades?bettor=${taker.address}`)).body.data.trades).toHaveLength(1);
      expect(await heldByAll()).toBe(minted);
    } finally {
      // A failure while it was paused must not leave it stopped.
      try {
        process.kill(p1.pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
  }, 60_000);

  it('publishes on both realtime nodes; after kill -9 of the sequencer the standby answers within 5 s with every acknowledged order, funds exact, publications without a gap', async () => {
    const [maker, taker] = [await funded(100_000n * USDC), await funded()];
    const market = (await adminOk('/admin/markets', { exchangeEventId: await fixture(league), type: 52 }))[0].marketHash as string;
    await known(market);
    const key = (await adminOk('/admin/api-keys', { address: maker.address })).apiKey as string;
    const token = async () => {
      const r = await call(g1, 'GET', '/user/realtime-token/api-key', undefined, { 'x-api-key': key });
      if (r.status !== 200) throw new Error(`token: ${r.status} ${JSON.stringify(r.body)}`);
      return r.body.token as string;
    };
    await waitFor(async () => (await call(g1, 'GET', '/user/realtime-token/api-key', undefined, { 'x-api-key': key })).status === 200, 5000, 'the key reaches the gateway');
    const subscribers = cluster.realtime.map((node) => {
      const client = centrifugeClient(node.url, { getToken: token });
      const sub = client.newSubscription(`order_book:market_${market}`);
      const pubs: PublicationContext[] = [];
      const subscribed: SubscribedContext[] = [];
      /** When each subscribe was answered (Date.now()). */
      const subscribedAt: number[] = [];
      sub.on('publication', (p) => pubs.push(p));
      sub.on('subscribed', (s) => {
        subscribed.push(s);
        subscribedAt.push(Date.now());
      });
      client.connect();
      sub.subscribe();
      return { client, sub, pubs, subscribed, subscribedAt };
    });
    try {
      await Promise.all(subscribers.map((s) => s.sub.ready(10_000)));
      const first = await post(g1, maker, market, 50n * E18, true, 500n * USDC);
      await waitFor(() => subscribers.every((s) => JSON.stringify(s.pubs).includes(first)), 10_000, 'the order on both nodes');

      // Makers post and takers fill through both gateways while the sequencer is killed.
      const acknowledged: string[] = [first];
      /** Acknowledged orders with when their request was sent (Date.now()). */
      const sent: { hash: string; at: number }[] = [];
      let filled = 0n;
      let stop = false;
      const poster = (async () => {
        for (let i = 0; !stop; i++) {
          const o = await signedOrder(maker, config, { marketHash: market, totalBetSize: 10n * USDC, percentageOdds: BigInt(20 + (i % 20)) * E18, isMakerBettingOutcomeOne: true });
          const at = Date.now();
          const r = await write(i % 2 ? g1 : g2, 'POST', '/orders/new', { orders: [o.body] });
          if (r.status === 200 && r.body.data.statuses[o.hash] === 'OK') {
            acknowledged.push(o.hash);
            sent.push({ hash: o.hash, at });
          }
        }
      })();
      const filler = (async () => {
        while (!stop) {
          const f = await signedFill(taker, config, { market, isTakerBettingOutcomeOne: false, stakeWei: USDC, desiredOdds: 80n * E18 });
          const r = await write(g2, 'POST', '/orders/fill/v2', f);
          if (r.status === 200) filled += BigInt(r.body.data.totalFilled);
        }
      })();
      await sleep(1500);
      process.kill(cluster.sequencer.pid, 'SIGKILL');
      const killedAt = Date.now();
      // The first write acknowledged after the kill: the standby has taken over.
      const before = acknowledged.length;
      await waitFor(() => acknowledged.length > before + 2, 15_000, 'writes acknowledged after the kill');
      const tookMs = Date.now() - killedAt;
      await sleep(1000);
      stop = true;
      await Promise.all([poster, filler]);
      console.log(`cluster takeover: a write acknowledged ${tookMs} ms after kill -9 of the sequencer; ${acknowledged.length} orders acknowledged, ${filled} wei filled`);
      expect(tookMs).toBeLessThan(5000);
      expect(filled).toBeGreaterThan(0n);

      // By hash: filled and cancelled orders too.
      const present = new Set<string>();
      for (let i = 0; i < acknowledged.length; i += 50) {
        const orders = (await read(g2, `/orders?orderHashes=${acknowledged.slice(i, i + 50).join(',')}`)).body.data as { orderHash: string }[];
        for (const o of orders) present.add(o.orderHash);
      }
      expect(acknowledged.filter((h) => !present.has(h))).toEqual([]);
      await sleep(500); // confirmations of the last fills
      expect(await heldByAll()).toBe(minted);

      // Publications on both nodes: offsets without a gap, or a new epoch the client was told about.
      const lastAt = Date.now();
      const last = await post(g1, maker, market, 21n * E18, true);
      sent.push({ hash: last, at: lastAt });
      await waitFor(() => subscribers.every((s) => JSON.stringify(s.pubs).includes(last)), 10_000, 'a publication after the takeover on both nodes');
      for (const s of subscribers) {
        const offsets = s.pubs.map((p) => p.offset!);
        expect(offsets.length).toBeGreaterThan(3);
        const gaps = offsets.filter((o, i) => i > 0 && o !== offsets[i - 1]! + 1);
        if (gaps.length > 0) expect(s.subscribed.some((x) => x.wasRecovering && !x.recovered)).toBe(true);
        // The killed sequencer may have journaled groups it never published: the standby restarted the streams, and
        // every subscriber was told (recovered:false) rather than left with a gap it cannot see.
        expect(s.subscribed.some((x) => x.wasRecovering && !x.recovered)).toBe(true);
        // From its last subscribe on, the subscriber misses nothing: every order posted after it was published to it.
        const since = s.subscribedAt[s.subscribedAt.length - 1]!;
        const seen = JSON.stringify(s.pubs.map((p) => p.data));
        const postedAfter = sent.filter((o) => o.at > since).map((o) => o.hash);
        expect(postedAfter.filter((h) => !seen.includes(h))).toEqual([]);
      }
    } finally {
      for (const s of subscribers) s.client.disconnect();
    }
  }, 120_000);
});

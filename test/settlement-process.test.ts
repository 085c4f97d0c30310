// The settlement chain adapter in a process of its own (ODDEX_ROLES=settlement) beside a sequencer that runs without
// it, on one PostgreSQL database, reports over NATS. With the local ledger: a maker's order and a taker's fill, signed
// with viem against what /metadata names, stay PENDING while no settlement process runs and execute, funds exact to
// the wei, once one does; a chain report sent on the gateways' command subject is refused; a second settlement
// process stands by (503 on /health/ready) and takes over after kill -9 of the first, executing the fill that was in
// flight at the kill and one made after it.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PrivateKeyAccount } from 'viem';
import { connect } from '@nats-io/transport-node';
import type { Metadata } from '@oddex/sdk';
import { spawnWatched, suiteChildren, type WatchedExchange } from './helpers/process.js';
import { noPostgres, postgresForSuite, postgresSuite } from './helpers/postgres.js';
import { natsForSuite } from './helpers/nats.js';
import { call } from './helpers/positioned-call.js';
import { waitFor } from './helpers/bets.js';
import { clientViewOf, type ClientView } from './helpers/evm.js';
import { E18, USDC, newWallet, signedFill, signedOrder } from './helpers/wallets.js';
import { COMMAND_SUBJECT, decodeReply, encodeRequest } from '../src/sequencer/nats/wire.js';

const ADMIN = 'settlement-process-test-admin';
const SETTLING = /settling fills on the chain/;
/** The local ledger's confirmation delay: a fill executes this long after it is handed over. */
const CONFIRM_MS = 150;

describe.skipIf(noPostgres)(postgresSuite('the settlement chain adapter in a process of its own'), () => {
  const postgres = postgresForSuite();
  const nats = natsForSuite();
  const { tempDir, spawn } = suiteChildren('settlement-process');
  const settlers: WatchedExchange[] = [];
  let common: Record<string, string>;
  let sequencer = '';
  let view: ClientView;
  let markets: string[] = [];
  const admin = { authorization: `Bearer ${ADMIN}` };

  const urlOf = async (p: WatchedExchange) => /listening on (http:\/\/[\d.]+:\d+)/.exec(await p.line(/listening on/))![1]!;
  const startSettlement = () => {
    const p = spawnWatched({ ...common, ODDEX_ROLES: 'settlement' });
    settlers.push(p);
    return p;
  };
  const funded = async () => {
    const w = newWallet();
    expect((await call(sequencer, 'POST', '/admin/faucet', { address: w.address, amount: (1000n * USDC).toString() }, admin)).status).toBe(200);
    return w;
  };
  /** A maker's order of 50 at 40% and a taker's fill of 30 against it (the maker's stake 20): the fill's hash and the order's. */
  const trade = async (maker: PrivateKeyAccount, taker: PrivateKeyAccount, market: string) => {
    const order = await signedOrder(maker, view.signing, { marketHash: market, totalBetSize: 50n * USDC, percentageOdds: 40n * E18, isMakerBettingOutcomeOne: true });
    const posted = await call(sequencer, 'POST', '/orders/new', { orders: [order.body] });
    expect([posted.status, posted.body.data?.statuses]).toEqual([200, { [order.hash]: 'OK' }]);
    const fill = await signedFill(taker, view.signing, { market, isTakerBettingOutcomeOne: false, stakeWei: 30n * USDC, desiredOdds: 60n * E18 });
    const filled = await call(sequencer, 'POST', '/orders/fill/v2', fill);
    expect([filled.status, filled.body.data?.totalFilled]).toEqual([200, String(30n * USDC)]);
    return { fillHash: filled.body.data.fillHash as string, orderHash: order.hash };
  };
  const statuses = async (orderHash: string) =>
    ((await call(sequencer, 'GET', `/trades/orders?orderHashes=${orderHash}`)).body.data.trades as { tradeStatus: string }[]).map((t) => t.tradeStatus);
  const executed = (orderHash: string, timeoutMs = 10_000) => waitFor(() => statuses(orderHash), (s) => s.length === 2 && s.every((x) => x !== 'PENDING'), timeoutMs);
  const balance = async (w: PrivateKeyAccount) => {
    const b = (await call(sequencer, 'GET', `/balances/${w.address}`)).body.data as { balance: string; escrowed: string };
    return [b.balance, b.escrowed];
  };

  beforeAll(async () => {
    common = {
      ODDEX_DATABASE_URL: await postgres().createDatabase(),
      ODDEX_NATS_URL: nats().url,
      ODDEX_ADMIN_TOKEN: ADMIN,
      ODDEX_DEMO: 'true',
      ODDEX_DELAY_PREGAME_MS: '0',
      ODDEX_RATE_LIMITS: 'false',
      ODDEX_CHAIN_CONFIRM_MS: String(CONFIRM_MS),
    };
    sequencer = await spawn({ ...common, ODDEX_DATA_DIR: tempDir(), ODDEX_ROLES: 'sequencer,projector,realtime' });
    view = clientViewOf((await call(sequencer, 'GET', '/metadata')).body.data as Metadata);
    markets = (await call(sequencer, 'GET', '/markets/active?type=52&pageSize=100')).body.data.markets
      .filter((m: { liveEnabled: boolean }) => !m.liveEnabled)
      .map((m: { marketHash: string }) => m.marketHash);
  }, 60_000);

  afterAll(async () => {
    for (const p of settlers) p.child.kill('SIGKILL');
    await Promise.all(settlers.map((p) => p.exited));
  });

  it('leaves fills pending without a settlement process, refuses chain reports from gateways, and executes them once one runs', async () => {
    const [maker, taker] = [await funded(), await funded()];
    const { fillHash, orderHash } = await trade(maker, taker, markets[0]!);
    // No settlement process yet: the sequencer took the fill and hands it to no chain.
    await new Promise((r) => setTimeout(r, 4 * CONFIRM_MS));
    expect(await statuses(orderHash)).toEqual(['PENDING', 'PENDING']);

    // A confirmation on the subject gateways send clients' commands on is refused: only a settlement process reports.
    const nc = await connect({ servers: nats().url });
    try {
      const request = encodeRequest({ id: randomUUID(), command: { kind: 'confirmFill', at: Date.now(), fillHash } });
      const reply = decodeReply((await nc.request(COMMAND_SUBJECT, request, { timeout: 5000 })).string());
      expect(reply).toMatchObject({ ok: false, failure: expect.stringMatching(/a confirmFill command is not taken on oddex\.sequencer\.commands/) });
    } finally {
      await nc.close();
    }
    await new Promise((r) => setTimeout(r, 2 * CONFIRM_MS));
    expect(await statuses(orderHash)).toEqual(['PENDING', 'PENDING']);

    const first = startSettlement();
    await first.line(SETTLING);
    expect(await executed(orderHash)).toEqual(['SUCCESS', 'SUCCESS']);
    // Taker 30 at the maker's 40%: the maker's 20 and the taker's 30 moved into escrow, nothing else.
    expect(await balance(maker)).toEqual([String(980n * USDC), String(20n * USDC)]);
    expect(await balance(taker)).toEqual([String(970n * USDC), String(30n * USDC)]);
    const firstUrl = await urlOf(first);
    expect((await fetch(`${firstUrl}/health/ready`)).status).toBe(200);
    expect(await (await fetch(`${firstUrl}/metrics`)).text()).toMatch(/^oddex_settlement_active 1$/m);
  }, 30_000);

  it('a second settlement process stands by, and takes over after kill -9 of the first: fills in flight and new ones execute', async () => {
    const [first] = settlers as [WatchedExchange];
    const second = startSettlement();
    await second.line(/standing by: another settlement process holds the settlement lock/);
    const secondUrl = await urlOf(second);
    const ready = await fetch(`${secondUrl}/health/ready`);
    expect([ready.status, await ready.json()]).toEqual([503, { status: 'standby' }]);
    expect(await (await fetch(`${secondUrl}/metrics`)).text()).toMatch(/^oddex_settlement_active 0$/m);

    const [maker, taker] = [await funded(), await funded()];
    // Accepted just before the kill: handed to the first one's chain, not confirmed yet when it dies.
    const inFlight = await trade(maker, taker, markets[1]!);
    first.child.kill('SIGKILL');
    await first.exited;
    expect(await statuses(inFlight.orderHash)).toEqual(['PENDING', 'PENDING']);
    const after = await trade(maker, taker, markets[2]!);
    await second.line(SETTLING);
    expect(await executed(inFlight.orderHash)).toEqual(['SUCCESS', 'SUCCESS']);
    expect(await executed(after.orderHash)).toEqual(['SUCCESS', 'SUCCESS']);
    // Two fills, each executed once: the maker's 2 x 20 and the taker's 2 x 30 in escrow, to the wei.
    expect(await balance(maker)).toEqual([String(960n * USDC), String(40n * USDC)]);
    expect(await balance(taker)).toEqual([String(940n * USDC), String(60n * USDC)]);
    expect((await fetch(`${secondUrl}/health/ready`)).status).toBe(200);
  }, 30_000);
});

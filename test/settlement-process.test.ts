// The settlement chain adapter in a process of its own (ODDEX_ROLES=settlement) beside a sequencer that runs without
// it, on one PostgreSQL database, reports over NATS. With the local ledger: a maker's order and a taker's fill, signed
// with viem against what /metadata names, stay PENDING while no settlement process runs and execute, funds exact to
// the wei, once one does; a chain report sent on the gateways' command subject is refused; a second settlement
// process stands by (503 on /health/ready) and takes over after kill -9 of the first, executing the fill that was in
// flight at the kill, one made after it and one made while it settles. On an EVM chain (anvil): the settlement process
// holds the executor's key, and fills settle on chain (a FillSettled event names each), before and after a takeover;
// and when the sequencer, paused across a takeover, takes the previous settlement process's last block range before its
// successor's overlapping one, the successor's range is refused and it follows the chain again from the journal's
// cursor: every wallet move counted once, fills settled once.
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEventLogs, type Address, type PrivateKeyAccount } from 'viem';
import { connect } from '@nats-io/transport-node';
import type { Metadata } from '@oddex/sdk';
import { spawnWatched, suiteChildren, type WatchedExchange } from './helpers/process.js';
import { noPostgres, postgresForSuite, postgresSuite } from './helpers/postgres.js';
import { natsForSuite, type TestNats } from './helpers/nats.js';
import { call } from './helpers/positioned-call.js';
import { waitFor } from './helpers/bets.js';
import { clientViewOf, startTestChain, type ClientView, type TestChain } from './helpers/evm.js';
import { oddexSettlementAbi, oddexTokenAbi } from '../src/chain/evm/contracts.js';
import { E18, USDC, newWallet, signedFill, signedOrder } from './helpers/wallets.js';
import { COMMAND_SUBJECT, decodeReply, encodeRequest } from '../src/sequencer/nats/wire.js';

const ADMIN = 'settlement-process-test-admin';
const SETTLING = /settling fills on the chain/;
/** The local ledger's confirmation delay: a fill executes this long after it is handed over. */
const CONFIRM_MS = 150;

/** An exchange as a client sees it: a process's URL and what its /metadata names. */
interface Exchange {
  url: string;
  view: ClientView;
  markets: string[];
}

async function exchangeAt(url: string): Promise<Exchange> {
  const view = clientViewOf((await call(url, 'GET', '/metadata')).body.data as Metadata);
  const markets = (await call(url, 'GET', '/markets/active?type=52&pageSize=100')).body.data.markets
    .filter((m: { liveEnabled: boolean }) => !m.liveEnabled)
    .map((m: { marketHash: string }) => m.marketHash);
  return { url, view, markets };
}

/** A maker's order of 50 at 40% and a taker's fill of 30 against it (the maker's stake 20): the fill's hash and the order's. */
async function trade(ex: Exchange, maker: PrivateKeyAccount, taker: PrivateKeyAccount, market: string) {
  const order = await signedOrder(maker, ex.view.signing, { marketHash: market, totalBetSize: 50n * USDC, percentageOdds: 40n * E18, isMakerBettingOutcomeOne: true });
  const posted = await call(ex.url, 'POST', '/orders/new', { orders: [order.body] });
  expect([posted.status, posted.body.data?.statuses]).toEqual([200, { [order.hash]: 'OK' }]);
  const fill = await signedFill(taker, ex.view.signing, { market, isTakerBettingOutcomeOne: false, stakeWei: 30n * USDC, desiredOdds: 60n * E18 });
  const filled = await call(ex.url, 'POST', '/orders/fill/v2', fill);
  expect([filled.status, filled.body.data?.totalFilled]).toEqual([200, String(30n * USDC)]);
  return { fillHash: filled.body.data.fillHash as string, orderHash: order.hash };
}

type Trade = { tradeStatus: string; fillOrderHash?: string };
const tradesOf = async (ex: Exchange, orderHash: string) => (await call(ex.url, 'GET', `/trades/orders?orderHashes=${orderHash}`)).body.data.trades as Trade[];
const statuses = async (ex: Exchange, orderHash: string) => (await tradesOf(ex, orderHash)).map((t) => t.tradeStatus);
/** The order's two trades once no longer PENDING. */
const executed = (ex: Exchange, orderHash: string, timeoutMs = 10_000) => waitFor(() => tradesOf(ex, orderHash), (t) => t.length === 2 && t.every((x) => x.tradeStatus !== 'PENDING'), timeoutMs);
const balance = async (ex: Exchange, w: PrivateKeyAccount) => {
  const b = (await call(ex.url, 'GET', `/balances/${w.address}`)).body.data as { balance: string; escrowed: string };
  return [b.balance, b.escrowed];
};
const urlOf = async (p: WatchedExchange) => /listening on (http:\/\/[\d.]+:\d+)/.exec(await p.line(/listening on/))![1]!;
const STANDING_BY = /standing by: another settlement process holds the settlement lock/;

describe.skipIf(noPostgres)(postgresSuite('the settlement chain adapter in a process of its own'), () => {
  const postgres = postgresForSuite();
  const { tempDir, spawn } = suiteChildren('settlement-process');
  const settlers: WatchedExchange[] = [];
  const startSettlement = (env: Record<string, string>) => {
    const p = spawnWatched({ ...env, ODDEX_ROLES: 'settlement' });
    settlers.push(p);
    return p;
  };
  /** One exchange's settings: a database of its own, and a NATS server of its own (queue groups are per exchange). */
  const environment = async (nats: TestNats) => ({
    ODDEX_DATABASE_URL: await postgres().createDatabase(),
    ODDEX_NATS_URL: nats.url,
    ODDEX_ADMIN_TOKEN: ADMIN,
    ODDEX_DEMO: 'true',
    ODDEX_DELAY_PREGAME_MS: '0',
    ODDEX_RATE_LIMITS: 'false',
  });

  afterAll(async () => {
    for (const p of settlers) p.child.kill('SIGKILL');
    await Promise.all(settlers.map((p) => p.exited));
  });

  describe('on the local ledger', () => {
    const nats = natsForSuite();
    let common: Record<string, string>;
    let ex: Exchange;
    /** The settlement process started first. */
    let first: WatchedExchange;
    const admin = { authorization: `Bearer ${ADMIN}` };
    const funded = async () => {
      const w = newWallet();
      expect((await call(ex.url, 'POST', '/admin/faucet', { address: w.address, amount: (1000n * USDC).toString() }, admin)).status).toBe(200);
      return w;
    };

    beforeAll(async () => {
      common = { ...(await environment(nats())), ODDEX_CHAIN_CONFIRM_MS: String(CONFIRM_MS) };
      ex = await exchangeAt(await spawn({ ...common, ODDEX_DATA_DIR: tempDir(), ODDEX_ROLES: 'sequencer,projector,realtime' }));
    }, 60_000);

    it('leaves fills pending without a settlement process, refuses chain reports from gateways, and executes them once one runs', async () => {
      const [maker, taker] = [await funded(), await funded()];
      const { fillHash, orderHash } = await trade(ex, maker, taker, ex.markets[0]!);
      // No settlement process yet: the sequencer took the fill and hands it to no chain.
      await new Promise((r) => setTimeout(r, 4 * CONFIRM_MS));
      expect(await statuses(ex, orderHash)).toEqual(['PENDING', 'PENDING']);

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
      expect(await statuses(ex, orderHash)).toEqual(['PENDING', 'PENDING']);

      first = startSettlement(common);
      await first.line(SETTLING);
      expect((await executed(ex, orderHash)).map((t) => t.tradeStatus)).toEqual(['SUCCESS', 'SUCCESS']);
      // Taker 30 at the maker's 40%: the maker's 20 and the taker's 30 moved into escrow, nothing else.
      expect(await balance(ex, maker)).toEqual([String(980n * USDC), String(20n * USDC)]);
      expect(await balance(ex, taker)).toEqual([String(970n * USDC), String(30n * USDC)]);
      const firstUrl = await urlOf(first);
      expect((await fetch(`${firstUrl}/health/ready`)).status).toBe(200);
      expect(await (await fetch(`${firstUrl}/metrics`)).text()).toMatch(/^oddex_settlement_active 1$/m);
    }, 30_000);

    it('a second settlement process stands by, and takes over after kill -9 of the first: fills in flight and new ones execute', async () => {
      const second = startSettlement(common);
      await second.line(STANDING_BY);
      const secondUrl = await urlOf(second);
      const ready = await fetch(`${secondUrl}/health/ready`);
      expect([ready.status, await ready.json()]).toEqual([503, { status: 'standby' }]);
      expect(await (await fetch(`${secondUrl}/metrics`)).text()).toMatch(/^oddex_settlement_active 0$/m);

      const [maker, taker] = [await funded(), await funded()];
      // Accepted just before the kill: handed to the first one's chain, not confirmed yet when it dies.
      const inFlight = await trade(ex, maker, taker, ex.markets[1]!);
      first.child.kill('SIGKILL');
      await first.exited;
      expect(await statuses(ex, inFlight.orderHash)).toEqual(['PENDING', 'PENDING']);
      const after = await trade(ex, maker, taker, ex.markets[2]!);
      await second.line(SETTLING);
      expect((await executed(ex, inFlight.orderHash)).map((t) => t.tradeStatus)).toEqual(['SUCCESS', 'SUCCESS']);
      expect((await executed(ex, after.orderHash)).map((t) => t.tradeStatus)).toEqual(['SUCCESS', 'SUCCESS']);
      // A fill accepted while it settles is learnt from the journal as it comes.
      const meanwhile = await trade(ex, maker, taker, ex.markets[3]!);
      expect((await executed(ex, meanwhile.orderHash)).map((t) => t.tradeStatus)).toEqual(['SUCCESS', 'SUCCESS']);
      // Three fills, each executed once: the maker's 3 x 20 and the taker's 3 x 30 in escrow, to the wei.
      expect(await balance(ex, maker)).toEqual([String(940n * USDC), String(60n * USDC)]);
      expect(await balance(ex, taker)).toEqual([String(910n * USDC), String(90n * USDC)]);
      expect((await fetch(`${secondUrl}/health/ready`)).status).toBe(200);
    }, 30_000);
  });
  describe('beside a sequencer that settles itself', () => {
    const nats = natsForSuite();
    const admin = { authorization: `Bearer ${ADMIN}` };

    it('one signer: a settlement process stands by while it settles, and it waits for the lock a settlement process holds', async () => {
      const common = { ...(await environment(nats())), ODDEX_CHAIN_CONFIRM_MS: String(CONFIRM_MS) };
      const dataDir = tempDir();
      // Every role, settlement included: this process holds the settlement lock and settles itself.
      const sequencer = spawnWatched({ ...common, ODDEX_DATA_DIR: dataDir });
      settlers.push(sequencer);
      const ex = await exchangeAt(await urlOf(sequencer));
      await sequencer.line(/holding the settlement lock/);
      const extra = startSettlement(common);
      await extra.line(STANDING_BY);
      expect((await fetch(`${await urlOf(extra)}/health/ready`)).status).toBe(503);
      const funded = async () => {
        const w = newWallet();
        expect((await call(ex.url, 'POST', '/admin/faucet', { address: w.address, amount: (1000n * USDC).toString() }, admin)).status).toBe(200);
        return w;
      };
      const [maker, taker] = [await funded(), await funded()];
      const own = await trade(ex, maker, taker, ex.markets[0]!);
      expect((await executed(ex, own.orderHash)).map((t) => t.tradeStatus)).toEqual(['SUCCESS', 'SUCCESS']);

      // The sequencer dies: the settlement process takes the lock. A sequencer that settles itself, started now, waits
      // for it: its fills stay PENDING (the settlement process's reports are not taken from it), until the lock is its own.
      sequencer.child.kill('SIGKILL');
      await sequencer.exited;
      await extra.line(SETTLING);
      const again = spawnWatched({ ...common, ODDEX_DATA_DIR: dataDir });
      settlers.push(again);
      const ex2 = await exchangeAt(await urlOf(again));
      await again.line(/another process holds the settlement lock/);
      const waiting = await trade(ex2, maker, taker, ex2.markets[1]!);
      await new Promise((r) => setTimeout(r, 6 * CONFIRM_MS));
      expect(await statuses(ex2, waiting.orderHash)).toEqual(['PENDING', 'PENDING']);
      extra.child.kill('SIGKILL');
      await extra.exited;
      await again.line(/holding the settlement lock/);
      expect((await executed(ex2, waiting.orderHash)).map((t) => t.tradeStatus)).toEqual(['SUCCESS', 'SUCCESS']);
      // Two fills, each executed once.
      expect(await balance(ex2, maker)).toEqual([String(960n * USDC), String(40n * USDC)]);
      expect(await balance(ex2, taker)).toEqual([String(940n * USDC), String(60n * USDC)]);
    }, 40_000);
  });
  describe('on an EVM chain (anvil)', () => {
    const nats = natsForSuite();
    let chain: TestChain;
    let env: Record<string, string>;
    let ex: Exchange;
    /** The sequencer (with the projector): paused by the overlap test. */
    let sequencer: WatchedExchange;
    /** The settlement process settling at the end of a test. */
    let settling: WatchedExchange;
    const onChain = (address: Address) => chain.pub.readContract({ address: ex.view.token, abi: oddexTokenAbi, functionName: 'balanceOf', args: [address] });
    /** The fill's trades once executed, and the fills the settling transaction's FillSettled events name. */
    const settledOnChain = async (orderHash: string) => {
      const trades = await executed(ex, orderHash, 20_000);
      expect(trades.map((t) => t.tradeStatus)).toEqual(['SUCCESS', 'SUCCESS']);
      const receipt = await chain.pub.getTransactionReceipt({ hash: trades[0]!.fillOrderHash as `0x${string}` });
      expect([receipt.status, receipt.to?.toLowerCase()]).toEqual(['success', ex.view.settlement.toLowerCase()]);
      return parseEventLogs({ abi: oddexSettlementAbi, logs: receipt.logs, eventName: 'FillSettled' }).map((l) => l.args.fillHash);
    };

    beforeAll(async () => {
      chain = await startTestChain();
      const dir = tempDir();
      const deploymentFile = join(dir, 'deployment.json');
      writeFileSync(deploymentFile, JSON.stringify(chain.deployment));
      env = { ...(await environment(nats())), ODDEX_CHAIN: 'evm', ODDEX_EVM_DEPLOYMENT: deploymentFile, ODDEX_EVM_BATCH_WAIT_MS: '20', ODDEX_EVM_POLL_MS: '50' };
      // Without the settlement role the sequencer reads the deployment file only: no chain client, no keys.
      sequencer = spawnWatched({ ...env, ODDEX_DATA_DIR: dir, ODDEX_ROLES: 'sequencer,projector' });
      settlers.push(sequencer);
      ex = await exchangeAt(await urlOf(sequencer));
    }, 60_000);

    afterAll(async () => {
      await chain?.stop();
    });

    it('settles fills on chain from the settlement process, and from its standby after kill -9 of it', async () => {
      const first = startSettlement(env);
      await first.line(SETTLING);
      const [maker, taker] = [await chain.fundedWallet(100n * USDC), await chain.fundedWallet(100n * USDC)];
      // The settlement process follows the chain and reports the mints: the sequencer's wallets hold them.
      for (const w of [maker, taker]) expect(await waitFor(() => balance(ex, w), (b) => b[0] === String(100n * USDC), 15_000)).toEqual([String(100n * USDC), '0']);
      const one = await trade(ex, maker, taker, ex.markets[0]!);
      expect(await settledOnChain(one.orderHash)).toEqual([one.fillHash]);
      expect([await onChain(maker.address), await onChain(taker.address), await onChain(ex.view.settlement)]).toEqual([80n * USDC, 70n * USDC, 50n * USDC]);

      const second = startSettlement(env);
      await second.line(STANDING_BY);
      first.child.kill('SIGKILL');
      await first.exited;
      const two = await trade(ex, maker, taker, ex.markets[1]!);
      await second.line(SETTLING);
      // The standby signs with the same executor, from the chain's next nonce, and follows the chain from the
      // journal's cursor: every token moved once.
      expect(await settledOnChain(two.orderHash)).toEqual([two.fillHash]);
      expect([await onChain(maker.address), await onChain(taker.address), await onChain(ex.view.settlement)]).toEqual([60n * USDC, 40n * USDC, 100n * USDC]);
      expect(await waitFor(() => balance(ex, maker), (b) => b[0] === String(60n * USDC), 5000)).toEqual([String(60n * USDC), String(40n * USDC)]);
      expect(await balance(ex, taker)).toEqual([String(40n * USDC), String(60n * USDC)]);
      settling = second;
    }, 40_000);

    it('a range refused as applied already (the previous settlement process\'s last one came first): follows the chain again from the journal, every move counted once', async () => {
      // Reports not answered within 0.6 s are logged as "not taken yet", naming their blocks.
      const patient = { ...env, ODDEX_SEQUENCER_ATTEMPT_TIMEOUT_MS: '500', ODDEX_SEQUENCER_RETRY_MS: '600' };
      const first = startSettlement(patient);
      await first.line(STANDING_BY);
      settling.child.kill('SIGKILL');
      await settling.exited;
      await first.line(SETTLING);
      const second = startSettlement(patient);
      await second.line(STANDING_BY);
      // Whatever the previous one left unreported is reported and journaled before the sequencer pauses.
      await new Promise((r) => setTimeout(r, 500));

      const wallet = newWallet();
      const mint = async (amount: bigint) => {
        const hash = await chain.operator.writeContract({ chain: chain.chain, account: chain.operator.account!, address: ex.view.token, abi: oddexTokenAbi, functionName: 'mint', args: [wallet.address, amount] });
        return Number((await chain.pub.waitForTransactionReceipt({ hash })).blockNumber);
      };
      const NOT_TAKEN = /chain events of blocks (\d+)-(\d+) not taken yet/;
      const rangeOf = async (p: WatchedExchange) => NOT_TAKEN.exec(await p.line(NOT_TAKEN))!.slice(1).map(Number);
      // The sequencer stalls (a pause, a stopped VM): NATS hands it the first one's report of the first mint, unanswered.
      sequencer.child.kill('SIGSTOP');
      try {
        const mintBlock = await mint(7n * USDC);
        const [firstFrom, firstTo] = await rangeOf(first);
        expect(firstFrom! <= mintBlock && mintBlock <= firstTo!).toBe(true);
        // A second mint after that range: the first one's report of it waits behind the first range, and dies with it.
        const laterBlock = await mint(5n * USDC);
        expect(laterBlock).toBeGreaterThan(firstTo!);
        await new Promise((r) => setTimeout(r, 300));
        first.child.kill('SIGKILL');
        await first.exited;
        // The successor takes over from the journal's cursor (the first range is not journaled yet): one range over both mints.
        await second.line(SETTLING);
        const [secondFrom, secondTo] = await rangeOf(second);
        expect([secondFrom, secondTo! >= laterBlock]).toEqual([firstFrom, true]);
      } finally {
        sequencer.child.kill('SIGCONT');
      }
      // The sequencer takes the reports in the order they came: the first one's range, then the successor's, refused.
      await second.line(/overlaps a range another settlement process reported: following the chain again from the journal/);
      // Followed again from the first range's end: the second mint is counted, the first once.
      expect(await waitFor(() => balance(ex, wallet), (b) => b[0] === String(12n * USDC), 10_000)).toEqual([String(12n * USDC), '0']);

      // Fills settle after the recovery, each once, to the wei.
      const [maker, taker] = [await chain.fundedWallet(100n * USDC), await chain.fundedWallet(100n * USDC)];
      for (const w of [maker, taker]) expect(await waitFor(() => balance(ex, w), (b) => b[0] === String(100n * USDC), 15_000)).toEqual([String(100n * USDC), '0']);
      const three = await trade(ex, maker, taker, ex.markets[2]!);
      expect(await settledOnChain(three.orderHash)).toEqual([three.fillHash]);
      expect([await onChain(maker.address), await onChain(taker.address), await onChain(wallet.address)]).toEqual([80n * USDC, 70n * USDC, 12n * USDC]);
      expect(await waitFor(() => balance(ex, maker), (b) => b[0] === String(80n * USDC), 5000)).toEqual([String(80n * USDC), String(20n * USDC)]);
      expect(await balance(ex, taker)).toEqual([String(70n * USDC), String(30n * USDC)]);
      expect(await balance(ex, wallet)).toEqual([String(12n * USDC), '0']);
      expect(second.lines(/overlaps a range another settlement process reported/)).toHaveLength(1);
      // The takeovers' waits for the read side (before the escrow's unpaid lists) are over: nothing waited for, nothing lacking.
      const metrics = await (await fetch(`${await urlOf(second)}/metrics`)).text();
      expect([metrics.match(/^oddex_settlement_escrow_wait_seconds .*$/m)?.[0], metrics.match(/^oddex_settlement_read_side_behind .*$/m)?.[0]]).toEqual([
        'oddex_settlement_escrow_wait_seconds 0',
        'oddex_settlement_read_side_behind 0',
      ]);
    }, 60_000);
  });
});

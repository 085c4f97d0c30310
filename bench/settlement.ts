// Fills settled per second on anvil with batching, and the latency from acceptance (the fill's 200) to SUCCESS
// (the exchange has seen the FillSettled event), p50/p99. Runs anvil from the npm package and the exchange in
// this process with ODDEX_CHAIN=evm. Usage: npx tsx bench/settlement.ts [fills] [ratePerSecond] [batchSize]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { createPublicClient, createWalletClient, http, maxUint256, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { defaultConfig, loadConfig } from '../src/config.js';
import { startExchange } from '../src/server.js';
import { startAnvil } from '../src/chain/evm/anvil.js';
import { deployContracts } from '../src/chain/evm/deploy.js';
import { oddexTokenAbi } from '../src/chain/evm/contracts.js';
import { DEV_EXECUTOR_KEY, DEV_OPERATOR_KEY } from '../src/chain/evm/dev-accounts.js';
import { orderHash } from '../src/protocol/hashing.js';
import { signFill, signOrder } from '../src/protocol/signing.js';
import { fmt, httpClient, openLoop, percentiles } from './lib.js';

const fills = Number(process.argv[2] ?? 3000);
const rate = Number(process.argv[3] ?? 800);
const batchSize = Number(process.argv[4] ?? 100);
const USDC = 1_000_000n;
const E18 = 10n ** 18n;
const TAKERS = 20;

const anvil = await startAnvil({ gasLimit: 1_000_000_000n });
const dataDir = mkdtempSync(join(tmpdir(), 'oddex-bench-settle-'));
try {
  const transport = http(anvil.rpcUrl);
  const chain = { id: anvil.chainId, name: 'anvil', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [anvil.rpcUrl] } } };
  const pub = createPublicClient({ chain, transport, pollingInterval: 20 });
  const base = loadConfig({}, []);
  const deployment = await deployContracts({ rpcUrl: anvil.rpcUrl, operatorKey: DEV_OPERATOR_KEY, executor: privateKeyToAccount(DEV_EXECUTOR_KEY).address, domainName: base.domainNames.fill, domainVersion: base.domainVersion });
  writeFileSync(join(dataDir, 'evm-deployment.json'), JSON.stringify(deployment));

  // Wallets: one maker, TAKERS takers, all funded and approved on chain before the exchange starts.
  const operator = createWalletClient({ account: privateKeyToAccount(DEV_OPERATOR_KEY), chain, transport });
  const keys = Array.from({ length: TAKERS + 1 }, () => generatePrivateKey());
  for (const key of keys) {
    const wallet = createWalletClient({ account: privateKeyToAccount(key), chain, transport });
    await pub.request({ method: 'anvil_setBalance' as never, params: [wallet.account.address, '0x56BC75E2D63100000'] as never });
    await pub.waitForTransactionReceipt({ hash: await wallet.writeContract({ address: deployment.token, abi: oddexTokenAbi, functionName: 'approve', args: [deployment.proxy, maxUint256] }) });
    await pub.waitForTransactionReceipt({ hash: await operator.writeContract({ address: deployment.token, abi: oddexTokenAbi, functionName: 'mint', args: [wallet.account.address, 10n ** 9n * USDC] }) });
  }
  const [makerKey, ...takerKeys] = keys as [Hex, ...Hex[]];

  const ex = await startExchange(
    loadConfig({}, [], {
      host: '127.0.0.1',
      port: 0,
      dataDir,
      demo: true,
      logLevel: 'warn',
      adminToken: 'bench',
      chain: 'evm',
      evm: { ...defaultConfig().evm, batchSize, batchGas: 900_000_000, batchWaitMs: 20, pollMs: 20 },
      bettingDelay: { preGameMs: 0, inPlayMs: 0, inPlayBySportMs: {}, inPlayByLeagueMs: {} },
      rateLimits: { ...defaultConfig().rateLimits, enabled: false },
    }),
    { logDestination: new Writable({ write: (_c, _e, done) => done() }) },
  );
  const config = ex.ctx.config;
  const request = httpClient(ex.url);
  const markets = ((await (await fetch(ex.url + '/markets/active?pageSize=10&type=52')).json()) as { data: { markets: { marketHash: string; liveEnabled: boolean }[] } }).data.markets
    .filter((m) => !m.liveEnabled)
    .map((m) => m.marketHash);
  const maker = privateKeyToAccount(makerKey).address;
  for (;;) {
    const b = JSON.parse((await request('GET', `/balances/${maker}`)).body) as { data: { balance: string } };
    if (b.data.balance !== '0') break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const expiry = Math.floor(Date.now() / 1000) + 3600;
  const orders = markets.map((marketHash) => {
    const fields = { marketHash, baseToken: config.baseTokenAddress, totalBetSize: 10n ** 7n * USDC, percentageOdds: 50n * E18, expiry: BigInt(expiry), salt: BigInt('0x' + randomBytes(32).toString('hex')), maker, executor: config.executorAddress, isMakerBettingOutcomeOne: true };
    return { ...fields, totalBetSize: fields.totalBetSize.toString(), percentageOdds: fields.percentageOdds.toString(), expiry, apiExpiry: expiry, salt: fields.salt.toString(), signature: signOrder(fields, makerKey), hash: orderHash(fields) };
  });
  const posted = await request('POST', '/orders/new', { orders: orders.map(({ hash: _hash, ...o }) => o) });
  if (posted.status !== 200) throw new Error(`posting orders: ${posted.body}`);

  const domain = { name: config.domainNames.fill, version: config.domainVersion, chainId: config.chainId, verifyingContract: config.eip712FillHasher };
  const bodies = Array.from({ length: fills }, (_, i) => {
    const key = takerKeys[i % takerKeys.length]!;
    const fill = { market: markets[i % markets.length]!, baseToken: config.baseTokenAddress, stakeWei: USDC, desiredOdds: 50n * E18, oddsSlippage: 0, isTakerBettingOutcomeOne: false, fillSalt: BigInt('0x' + randomBytes(32).toString('hex')) };
    return { ...fill, stakeWei: fill.stakeWei.toString(), desiredOdds: fill.desiredOdds.toString(), fillSalt: fill.fillSalt.toString(), taker: privateKeyToAccount(key).address, takerSig: signFill(domain, fill, key) };
  });

  const settledAt = new Map<string, number>();
  const txOf = new Map<string, string>();
  ex.ctx.bus.on('trades', (trades) => {
    const now = performance.now();
    for (const t of trades) {
      if (t.maker || t.tradeStatus === 'PENDING' || settledAt.has(t.fillHash as string)) continue;
      settledAt.set(t.fillHash as string, now);
      txOf.set(t.fillHash as string, t.fillOrderHash as string);
    }
  });
  /** Sends fills [from, to) at the offered rate; returns when each was accepted. */
  async function accept(from: number, to: number) {
    const acceptedAt = new Map<string, number>();
    const sent = await openLoop(to - from, rate, async (i) => {
      const res = await request('POST', '/orders/fill/v2', bodies[from + i]);
      if (res.status !== 200) return false;
      acceptedAt.set((JSON.parse(res.body) as { data: { fillHash: string } }).data.fillHash, performance.now());
      return true;
    });
    return { acceptedAt, sent };
  }
  async function allSettled(acceptedAt: Map<string, number>) {
    const deadline = performance.now() + 180_000;
    while ([...acceptedAt.keys()].some((h) => !settledAt.has(h)) && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    return [...acceptedAt.keys()].filter((h) => settledAt.has(h));
  }
  async function gasPerFill(hashes: string[]) {
    const txs = [...new Set(hashes.map((h) => txOf.get(h)!))];
    let gas = 0n;
    for (const tx of txs) gas += (await pub.getTransactionReceipt({ hash: tx as Hex })).gasUsed;
    return { transactions: txs.length, fillsPerTransaction: +(hashes.length / txs.length).toFixed(1), gasPerFill: (gas / BigInt(hashes.length)).toString() };
  }

  // Phase 1, latency: anvil mines each transaction at once; fills arrive at the offered rate.
  const half = Math.floor(fills / 2);
  const live = await accept(0, half);
  const liveSettled = await allSettled(live.acceptedAt);
  const p = percentiles(liveSettled.map((h) => settledAt.get(h)! - live.acceptedAt.get(h)!));
  const liveSpan = (Math.max(...liveSettled.map((h) => settledAt.get(h)!)) - Math.min(...[...live.acceptedAt.values()])) / 1000;

  // Phase 2, settlement throughput: fills pile up (sent in batches but not mined), then the chain mines them.
  await pub.request({ method: 'evm_setAutomine' as never, params: [false] as never });
  const backlog = await accept(half, fills);
  await new Promise((r) => setTimeout(r, 500)); // the last batch leaves the exchange
  const mineStart = performance.now();
  await pub.request({ method: 'evm_setAutomine' as never, params: [true] as never });
  await pub.request({ method: 'evm_mine' as never, params: [] as never });
  const backlogSettled = await allSettled(backlog.acceptedAt);
  const backlogSpan = (Math.max(...backlogSettled.map((h) => settledAt.get(h)!)) - mineStart) / 1000;

  console.log(
    JSON.stringify(
      {
        offeredRatePerSecond: rate,
        batchSize,
        live: {
          fills: half,
          accepted: live.acceptedAt.size,
          acceptedPerSecond: +(live.acceptedAt.size / live.sent.seconds).toFixed(1),
          settled: liveSettled.length,
          settledPerSecond: +(liveSettled.length / liveSpan).toFixed(1),
          acceptToSuccess: { p50: fmt(p.p50), p99: fmt(p.p99), max: fmt(p.max) },
          ...(await gasPerFill(liveSettled)),
        },
        backlog: {
          fills: fills - half,
          accepted: backlog.acceptedAt.size,
          settled: backlogSettled.length,
          secondsFromMiningToLastSuccess: +backlogSpan.toFixed(2),
          settledPerSecond: +(backlogSettled.length / backlogSpan).toFixed(1),
          ...(await gasPerFill(backlogSettled)),
        },
      },
      null,
      2,
    ),
  );
  await ex.close();
} finally {
  await anvil.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

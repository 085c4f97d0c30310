// Demo liquidity: with demo mode on, the exchange quotes its own demo markets from the first start. A few maker
// wallets (kept in the data dir, funded once) each run the reference market maker on a share of the active
// markets, and a demo taker bets now and then. Everything goes through the public HTTP and realtime API of the
// exchange's own URL, exactly as an outside bot would.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type pino from 'pino';
import { WebSocket } from 'ws';
import { generatePrivateKey, OddexAdmin, OddexClient, privateKeyAccount, type Market } from '@oddex/sdk';
import { MarketMaker } from './market-maker.js';
import { ParlayQuoter } from './parlay-quoter.js';
import { DemoTaker } from './demo-taker.js';

const USDC = 1_000_000n;

export interface DemoLiquidityOptions {
  url: string;
  adminToken: string;
  dataDir: string;
  log: pino.Logger;
  makers?: number;
  /** Funds each maker gets when its balance is below half of this. */
  makerFunds?: bigint;
  takerFunds?: bigint;
  orderSize?: bigint;
  spread?: number;
  /**
   * On a chain (ODDEX_CHAIN=evm): readies a demo wallet to trade, which the faucet alone does not (gas, and the
   * approval of the transfer proxy that backs its orders). Absent on the local ledger.
   */
  prepareWallet?: (privateKey: `0x${string}`) => Promise<void>;
  /** Pauses between attempts to start (a full disk refuses its writes): the first, doubled each time up to the last. */
  retryMs?: { first: number; max: number };
}

interface DemoWallets {
  makers: { privateKey: string; apiKey: string }[];
  taker: { privateKey: string };
}

/** The same maker always quotes the same markets: a share chosen by the market hash. */
const shareOf = (marketHash: string, makers: number) => parseInt(marketHash.slice(2, 10), 16) % makers;

/** A fair probability for outcome one, stable per market, between 30% and 70%. */
export const demoFairProbability = (m: Pick<Market, 'marketHash'>) => 0.3 + (parseInt(m.marketHash.slice(10, 18), 16) % 400) / 1000;

export class DemoLiquidity {
  private readonly makers: MarketMaker[] = [];
  private readonly parlayQuoters: ParlayQuoter[] = [];
  private taker: DemoTaker | undefined;
  private readonly clients: OddexClient[] = [];
  private stopped = false;
  private starting: Promise<void> | undefined;
  /** Ends the pause before the next attempt to start at once (set during a pause). */
  private wake: (() => void) | undefined;

  constructor(private readonly o: DemoLiquidityOptions) {}

  /**
   * Funds the wallets and starts the bots; resolves once every maker has posted its first quotes, or once stopped.
   * An attempt the exchange refuses (a full disk answers its writes 503) is undone and made again, after a pause
   * doubling from 1 s to 30 s, until one succeeds or the demo is stopped: liquidity comes once space is freed.
   */
  start(): Promise<void> {
    this.starting ??= this.runUntilStarted();
    return this.starting;
  }

  private async runUntilStarted(): Promise<void> {
    const { first, max } = this.o.retryMs ?? { first: 1000, max: 30_000 };
    for (let pauseMs = first; !this.stopped; pauseMs = Math.min(2 * pauseMs, max)) {
      try {
        await this.run();
        return;
      } catch (err) {
        await this.undo();
        if (this.stopped) return;
        this.o.log.warn({ err, retryInMs: pauseMs }, 'demo liquidity could not start; trying again');
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, pauseMs);
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.wake = undefined;
      }
    }
  }

  /** Stops and forgets the bots a failed attempt started, so the next attempt starts each of them once. */
  private async undo(): Promise<void> {
    for (const q of this.parlayQuoters.splice(0)) q.stop();
    await Promise.all(this.makers.splice(0).map((m) => m.stop().catch(() => {})));
    await this.taker?.stop().catch(() => {});
    this.taker = undefined;
    for (const c of this.clients.splice(0)) c.close();
  }

  private async run(): Promise<void> {
    const { url, log } = this.o;
    await this.untilAccountReadsAnswer();
    if (this.stopped) return;
    const admin = new OddexAdmin({ url, adminToken: this.o.adminToken });
    const wallets = await this.wallets(admin);
    const makerFunds = this.o.makerFunds ?? 1_000_000n * USDC;
    const fund = async (client: OddexClient, privateKey: string, amount: bigint) => {
      await this.o.prepareWallet?.(privateKey as `0x${string}`);
      if ((await client.balance()).balance < amount / 2n) await admin.faucet(client.address, amount);
    };

    // Markets are read once per refresh and shared by the bots.
    let cached: { at: number; markets: Promise<Market[]> } | undefined;
    const reader = new OddexClient({ url });
    const activeMarkets = () => {
      if (!cached || Date.now() - cached.at > 30_000) cached = { at: Date.now(), markets: reader.allActiveMarkets() };
      return cached.markets;
    };

    const count = wallets.makers.length;
    // Settled, not raced: a failed attempt is undone only once none of its makers is still starting.
    const makersStarted = await Promise.allSettled(
      wallets.makers.map(async (w, i) => {
        const client = new OddexClient({ url, signer: w.privateKey, apiKey: w.apiKey, WebSocket });
        this.clients.push(client);
        await fund(client, w.privateKey, makerFunds);
        if (this.stopped) return;
        const maker = new MarketMaker({
          client,
          markets: async () => (await activeMarkets()).filter((m) => shareOf(m.marketHash, count) === i),
          fairProbability: demoFairProbability,
          spread: this.o.spread ?? 0.04,
          orderSize: this.o.orderSize ?? 20n * USDC,
          heartbeatSeconds: 30,
          marketRefreshMs: 30_000,
          log: (message, fields) => log.debug({ maker: i, ...fields }, message),
        });
        this.makers.push(maker);
        await maker.start();
        // Every maker quotes every parlay request, each with its own margin, so a bettor sees several offers.
        const parlays = new ParlayQuoter({
          client,
          legProbability: (marketHash) => demoFairProbability({ marketHash }),
          margin: 0.03 + 0.01 * i,
          maxStake: 200n * USDC,
          log: (message, fields) => log.debug({ maker: i, ...fields }, message),
        });
        this.parlayQuoters.push(parlays);
        if (!this.stopped) await parlays.start();
        log.info({ maker: client.address, stats: maker.stats }, 'demo market maker quoting');
      }),
    );
    const failed = makersStarted.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
    if (this.stopped) return;

    const takerClient = new OddexClient({ url, signer: wallets.taker.privateKey });
    this.clients.push(takerClient);
    await fund(takerClient, wallets.taker.privateKey, this.o.takerFunds ?? 10_000n * USDC);
    this.taker = new DemoTaker({
      client: takerClient,
      marketHashes: async () => (await activeMarkets()).map((m) => m.marketHash),
      minStake: USDC,
      maxStake: 5n * USDC,
      log: (message, fields) => log.debug(fields ?? {}, message),
    });
    if (!this.stopped) this.taker.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    for (const q of this.parlayQuoters) q.stop();
    // The makers stop first: a first round of quotes still posting ends after its current request.
    // Their orders stay in the book; the heartbeat cancels them if the exchange stays down.
    await Promise.all(this.makers.map((m) => m.stop().catch(() => {})));
    await this.starting?.catch(() => {});
    await this.taker?.stop();
    for (const c of this.clients) c.close();
  }

  /**
   * Waits while the exchange cannot answer account reads yet: in a cluster the projector that writes them may start
   * after this process, and a maker must read its balance before it quotes.
   */
  private async untilAccountReadsAnswer(): Promise<void> {
    const probe = `${this.o.url}/balances/0x${'0'.repeat(40)}`;
    for (let delayMs = 250, told = false; !this.stopped; delayMs = Math.min(2 * delayMs, 5000)) {
      const res = await fetch(probe).catch((err: unknown) => String(err));
      if (typeof res !== 'string' && res.ok) return;
      if (!told) this.o.log.info({ answer: typeof res === 'string' ? res : res.status }, 'demo liquidity waits for the exchange to answer account reads');
      told = true;
      await new Promise((r) => setTimeout(r, delayMs));
    }
  }

  /** Wallets and API keys from the data dir, created (and their keys issued) on the first start. */
  private async wallets(admin: OddexAdmin): Promise<DemoWallets> {
    const file = join(this.o.dataDir, 'demo-wallets.json');
    // Empty only if a crash came between creating and writing it, before this wrote it whole (below).
    const stored = existsSync(file) ? readFileSync(file, 'utf8') : '';
    if (stored.trim() !== '') return JSON.parse(stored) as DemoWallets;
    const makers = await Promise.all(
      Array.from({ length: this.o.makers ?? 3 }, async () => {
        const privateKey = generatePrivateKey();
        const { apiKey } = await admin.createApiKey(privateKeyAccount(privateKey).address);
        return { privateKey, apiKey };
      }),
    );
    const wallets: DemoWallets = { makers, taker: { privateKey: generatePrivateKey() } };
    // Whole or not at all: a crash while writing must not leave a file the next start takes for the wallets.
    writeFileSync(`${file}.tmp`, JSON.stringify(wallets, null, 2) + '\n', { mode: 0o600 });
    renameSync(`${file}.tmp`, file);
    return wallets;
  }
}

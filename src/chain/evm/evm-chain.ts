// The EVM settlement chain. Accepted fills are sent in batches (one settleFills transaction each, nonces managed
// here) by the executor; what happened to each fill is read back from the settlement contract's events, in block
// order, by one follower that also reports wallet transfers and approvals of the base token. The follower's
// cursor is journaled with the token events, so a restart resumes where it stopped, and a fill the contract
// already settled is found by its event rather than executed twice.
import {
  createPublicClient,
  createWalletClient,
  decodeErrorResult,
  encodePacked,
  http,
  keccak256,
  maxUint256,
  parseEventLogs,
  type Address,
  type Hex,
  type PublicClient,
  type WalletClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { ChainEntry, ChainExecution } from '../../engine/types.js';
import type { RefundPaid } from '../../engine/changes.js';
import type { ChainSink, FillTerms, ReportedMarket, SettlementChain } from '../settlement-chain.js';
import { oddexSettlementAbi, oddexTokenAbi, settlementCallAbi } from './contracts.js';
import type { Deployment } from './deploy.js';
import { ExchangeError } from '../../protocol/errors.js';
import { settlementArgsOf, type SettlementFillArgs } from './fill-args.js';

export interface EvmChainOptions {
  rpcUrl: string;
  deployment: Deployment;
  executorKey: Hex;
  operatorKey: Hex;
  sink: ChainSink;
  /** Last block whose events the engine has applied (from the journal), or -1; read at start. */
  cursor(): number;
  /** The hash that block had when its events were reported (journaled with them), if known; read at start. */
  cursorHash(): string | undefined;
  batchSize: number;
  /** Most gas one settleFills transaction may take (below the chain's block gas limit). */
  batchGas: bigint;
  batchWaitMs: number;
  pollMs: number;
  /** How long a sent transaction may go without a receipt before its fills are sent again (ODDEX_EVM_RECEIPT_TIMEOUT_MS). */
  receiptTimeoutMs: number;
  log: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
}

interface Waiter {
  resolve(): void;
  reject(err: unknown): void;
}

/** Logs older than this many blocks per getLogs call, to stay under node limits. */
const MAX_LOG_RANGE = 5000n;
/**
 * Gas bounds of a settleFills transaction, from what its fills write (unused gas is not paid; eth_estimateGas
 * would run the whole batch many times over per transaction). Measured on a fresh deployment, where every slot is
 * cold: one plain fill of one order 380k, one quarter-line fill 462k (its match writes four escrow positions, not
 * two); warm fills in a batch about 165k.
 */
const BATCH_GAS = 60_000n;
const FILL_GAS = 150_000n;
const MATCH_GAS = 250_000n;
const QUARTER_LINE_MATCH_GAS = 350_000n;
const NO_LEGS = `0x${'0'.repeat(64)}`;
/** A cash out's payment: the position's cash-out figures written and up to three transfers (bettor, fee, affiliate). */
const CASH_OUT_GAS = 120_000n;
const fillGasBound = (f: SettlementFillArgs) =>
  FILL_GAS + BigInt(f.matches.length) * (f.legs[0] === NO_LEGS ? MATCH_GAS : QUARTER_LINE_MATCH_GAS) + (f.cashOutTarget === NO_LEGS ? 0n : CASH_OUT_GAS);

export class EvmChain implements SettlementChain {
  readonly pub: PublicClient;
  private readonly executor: WalletClient;
  private readonly operator: WalletClient;
  private readonly chain;
  /**
   * Fills waiting for a batch: their contract arguments (undefined: the fill cannot be presented on chain), and the
   * submit calls to resolve once their transaction is sent.
   */
  private readonly queue = new Map<string, { args: SettlementFillArgs | undefined; waiters: Waiter[] }>();
  /** Every submit carries the fill's terms: the contract verifies the signed orders and request. */
  readonly needsFillTerms = true;
  /** Fills sent whose outcome the follower has not seen yet, with their arguments (sent again if the transaction fails). */
  private readonly sent = new Map<string, SettlementFillArgs>();
  private nonce: number | undefined;
  private cursor = -1n;
  /** The hash of block `cursor` when it was followed: a chain whose block there differs is not the chain followed. */
  private cursorHash: Hex | undefined;
  /** Why the node no longer holds the chain the journal followed (set once; nothing is sent or followed after). */
  private diverged: string | undefined;
  /** Refunds handed to the escrow and not yet seen paid, by their on-chain key: the engine's refund id. */
  private readonly refundIds = new Map<Hex, number>();
  private flushTimer: NodeJS.Timeout | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private sending: Promise<void> = Promise.resolve();
  private polling: Promise<void> | undefined;
  private operatorQueue: Promise<unknown> = Promise.resolve();
  private stopped = false;
  /** Resolves once the follower has caught up with the chain for the first time. */
  readonly ready: Promise<void>;
  private markReady!: () => void;

  constructor(private readonly o: EvmChainOptions) {
    const transport = http(o.rpcUrl, { retryCount: 0, timeout: 15_000 });
    this.chain = {
      id: o.deployment.chainId,
      name: 'oddex-evm',
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [o.rpcUrl] } },
    } as const;
    this.pub = createPublicClient({ chain: this.chain, transport, pollingInterval: o.pollMs });
    this.executor = createWalletClient({ account: privateKeyToAccount(o.executorKey), chain: this.chain, transport });
    this.operator = createWalletClient({ account: privateKeyToAccount(o.operatorKey), chain: this.chain, transport });
    this.ready = new Promise((resolve) => (this.markReady = resolve));
  }

  /** After the journal is replayed: follow the chain from where the engine stopped. */
  start(): void {
    const journaled = this.o.cursor();
    this.cursor = BigInt(Math.max(journaled, Number(this.o.deployment.deployBlock) - 1));
    // Checked before anything is followed or sent: a node started afresh and grown past the journal's block since.
    if (this.cursor === BigInt(journaled)) this.cursorHash = this.o.cursorHash() as Hex | undefined;
    void this.catchUp().then(() => {
      this.markReady();
      this.schedulePoll();
    });
  }

  get inFlight(): number {
    return this.sent.size;
  }

  private diverge(reason: string): void {
    if (this.diverged !== undefined) return;
    this.diverged = reason;
    this.o.log.error(
      { cursor: Number(this.cursor), reason },
      `the settlement chain is not the chain the journal followed: ${reason}. Nothing is sent to it or followed from it any more; ` +
        'fills stay PENDING. Restore the chain (or point ODDEX_RPC_URL at it) and restart the exchange',
    );
  }

  /**
   * Throws CHAIN_DIVERGED once the node's chain is not the one the journal followed: its head is below the last block
   * applied, or its block there has another hash (the node was restarted on a fresh chain, or ODDEX_RPC_URL names
   * another chain). From then on nothing is sent to it and nothing of it is followed; the exchange reports not ready.
   */
  assertSameChain(): void {
    if (this.diverged !== undefined) throw new ExchangeError('CHAIN_DIVERGED', `the settlement chain is not the chain the journal followed: ${this.diverged}`);
  }

  /**
   * False (and diverged) when the node's head, read after the cursor was `followed`, is below it. The cursor only
   * grows, and may have grown while the head was read (a receipt's block followed meanwhile): only the cursor
   * before the read is compared.
   */
  private headFollows(head: bigint, followed: bigint): boolean {
    if (this.diverged !== undefined) return false;
    if (head >= followed) return true;
    this.diverge(`its head is block ${head}, below block ${followed} the journal has applied`);
    return false;
  }

  /** False (and diverged) when the node's block at the cursor has another hash than the block followed there. */
  private isFollowedBlock(block: bigint, hash: Hex): boolean {
    if (this.cursorHash === undefined || hash === this.cursorHash) return true;
    this.diverge(`its block ${block} has hash ${hash}, not ${this.cursorHash} as when the journal applied it`);
    return false;
  }

  async submit(fillHash: string, _acceptedAt: number, terms?: FillTerms): Promise<void> {
    await this.ready;
    if (this.stopped || this.sent.has(fillHash)) return;
    await new Promise<void>((resolve, reject) => {
      const queued = this.queue.get(fillHash) ?? { args: terms && settlementArgsOf(terms), waiters: [] };
      queued.waiters.push({ resolve, reject });
      this.queue.set(fillHash, queued);
      this.scheduleFlush();
    });
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.flushTimer);
    clearTimeout(this.pollTimer);
  }

  // ---- sending ------------------------------------------------------------------------------------

  private scheduleFlush(): void {
    if (this.flushTimer || this.stopped) return;
    const wait = this.queue.size >= this.o.batchSize ? 0 : this.o.batchWaitMs;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = undefined;
      this.sending = this.sending.then(() => this.sendBatch());
    }, wait);
  }

  private async sendBatch(): Promise<void> {
    if (this.stopped || this.queue.size === 0) return;
    // Up to batchSize fills whose gas bounds fit the batch's gas budget (at least one, whatever its bound).
    const batch: [string, Waiter[]][] = [];
    const args: SettlementFillArgs[] = [];
    const hashes: string[] = [];
    let gas = BATCH_GAS;
    for (const [fillHash, { args: fill, waiters }] of this.queue) {
      if (args.length >= this.o.batchSize) break;
      if (!fill) {
        this.queue.delete(fillHash);
        this.o.sink.executed(fillHash, { executed: false, reason: 'the fill was accepted without the signed request the contract verifies' });
        for (const w of waiters) w.resolve();
        continue;
      }
      const bound = fillGasBound(fill);
      if (args.length > 0 && gas + bound > this.o.batchGas) break;
      this.queue.delete(fillHash);
      batch.push([fillHash, waiters]);
      args.push(fill);
      hashes.push(fillHash);
      gas += bound;
    }
    if (this.queue.size > 0) this.scheduleFlush();
    if (args.length === 0) return;
    try {
      this.assertSameChain();
      const account = this.executor.account!;
      this.nonce ??= await this.pub.getTransactionCount({ address: account.address, blockTag: 'pending' });
      const call = { address: this.o.deployment.settlement, abi: oddexSettlementAbi, functionName: 'settleFills', args: [args] } as const;
      const txHash = await this.executor.writeContract({ ...call, account, chain: this.chain, nonce: this.nonce, gas });
      this.nonce++;
      hashes.forEach((fillHash, i) => this.sent.set(fillHash, args[i]!));
      this.o.sink.attempted(hashes, txHash);
      for (const [, waiters] of batch) for (const w of waiters) w.resolve();
      void this.watch(txHash, hashes);
    } catch (err) {
      // Nothing was sent (or we cannot tell): forget the nonce, and let each submit fail so it is retried.
      this.nonce = undefined;
      for (const [, waiters] of batch) for (const w of waiters) w.reject(err);
    }
  }

  /** A mined transaction's fills are reported by the follower; a reverted or lost one is sent again. */
  private async watch(txHash: Hex, fillHashes: string[]): Promise<void> {
    let mined = false;
    try {
      const receipt = await this.pub.waitForTransactionReceipt({ hash: txHash, timeout: this.o.receiptTimeoutMs, pollingInterval: this.o.pollMs });
      mined = receipt.status === 'success';
      if (mined) await this.syncTo(receipt.blockNumber);
      if (!mined) this.o.log.warn({ txHash }, 'a settlement transaction reverted; its fills are sent again');
    } catch (err) {
      this.o.log.warn({ err, txHash }, 'no receipt for a settlement transaction; its fills are sent again');
    }
    if (mined || this.stopped) return;
    this.nonce = undefined;
    for (const fillHash of fillHashes) {
      const args = this.sent.get(fillHash);
      if (!args) continue;
      this.sent.delete(fillHash);
      if (!this.queue.has(fillHash)) this.queue.set(fillHash, { args, waiters: [] });
    }
    this.scheduleFlush();
  }

  // ---- following the chain ---------------------------------------------------------------------------

  private async catchUp(): Promise<void> {
    for (let delay = 100; ; delay = Math.min(delay * 2, 10_000)) {
      if (this.stopped) return;
      try {
        const followed = this.cursor;
        // Uncached: viem answers a head up to its cache time old, which may be below a receipt's block followed since.
        const head = await this.pub.getBlockNumber({ cacheTime: 0 });
        if (!this.headFollows(head, followed)) return;
        // The block the journal followed last must be this node's; with no hash journaled for it, this node's hash
        // is taken as it, and later ranges check that it is still there.
        if (followed >= 0n) {
          const hash = (await this.pub.getBlock({ blockNumber: followed })).hash;
          if (this.cursor === followed) {
            this.cursorHash ??= hash;
            if (!this.isFollowedBlock(followed, hash)) return;
          }
        }
        await this.syncTo(head);
        return;
      } catch (err) {
        this.o.log.warn({ err, retryInMs: delay }, 'cannot read the settlement chain; retrying');
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  }

  private schedulePoll(): void {
    if (this.stopped) return;
    this.pollTimer = setTimeout(() => {
      const followed = this.cursor;
      this.pub
        .getBlockNumber({ cacheTime: 0 })
        .then((head) => (this.headFollows(head, followed) ? this.syncTo(head) : undefined))
        .catch((err: unknown) => this.o.log.warn({ err }, 'cannot read the settlement chain; retrying'))
        .finally(() => this.schedulePoll());
    }, this.o.pollMs);
  }

  /** Processes every block up to `block` (one follower at a time). */
  async syncTo(block: bigint): Promise<void> {
    while (this.cursor < block && !this.stopped && this.diverged === undefined) {
      this.polling ??= this.processRange(block).finally(() => (this.polling = undefined));
      await this.polling;
    }
  }

  /**
   * Reports one range of blocks as one command, in log order: token transfers as each wallet saw them (the stakes
   * our settlement pulls included, so a wallet's balance and allowance are the chain's when each fill executed), our
   * fills' outcomes, and the escrow's payouts.
   */
  private async processRange(head: bigint): Promise<void> {
    const from = this.cursor + 1n;
    if (from > head) return;
    const to = head - from >= MAX_LOG_RANGE ? from + MAX_LOG_RANGE - 1n : head;
    // The block followed last must still be there: a node reset to a fresh chain (or a reorg past it) is not followed on.
    if (this.cursorHash !== undefined && !this.isFollowedBlock(this.cursor, (await this.pub.getBlock({ blockNumber: this.cursor })).hash)) return;
    const [tokenLogs, settlementLogs, toBlock] = await Promise.all([
      this.pub.getLogs({ address: this.o.deployment.token, fromBlock: from, toBlock: to }),
      this.pub.getLogs({ address: this.o.deployment.settlement, fromBlock: from, toBlock: to }),
      this.pub.getBlock({ blockNumber: to }),
    ]);
    const logs = [...parseEventLogs({ abi: oddexTokenAbi, logs: tokenLogs }), ...parseEventLogs({ abi: oddexSettlementAbi, logs: settlementLogs })].sort(
      (a, b) => (a.blockNumber === b.blockNumber ? a.logIndex - b.logIndex : a.blockNumber < b.blockNumber ? -1 : 1),
    );
    const settlement = this.o.deployment.settlement.toLowerCase();
    const proxy = this.o.deployment.proxy.toLowerCase();
    const entries: ChainEntry[] = [];
    const reported: string[] = [];
    for (const log of logs) {
      switch (log.eventName) {
        case 'Transfer': {
          const { from: sender, to: receiver, value } = log.args;
          // Only the transfer proxy moves tokens from a wallet to the settlement (a direct send there would count
          // against the allowance too: the safe side).
          const toSettlement = receiver.toLowerCase() === settlement;
          if (sender !== ZERO_ADDRESS && sender.toLowerCase() !== settlement) {
            entries.push({ kind: 'wallet', address: sender, delta: -value, ...(toSettlement ? { allowanceSpent: value } : {}) });
          }
          if (receiver !== ZERO_ADDRESS && !toSettlement) entries.push({ kind: 'wallet', address: receiver, delta: value });
          break;
        }
        case 'Approval':
          if (log.args.spender.toLowerCase() === proxy) entries.push({ kind: 'approval', owner: log.args.owner, amount: log.args.value });
          break;
        case 'FillSettled':
          entries.push(this.fillEntry(log.args.fillHash, { executed: true, txHash: log.transactionHash }));
          reported.push(log.args.fillHash);
          break;
        case 'FillFailed': {
          const entry = await this.failureEntry(log.args.fillHash, log.args.reason, log.transactionHash);
          if (entry) {
            entries.push(entry);
            reported.push(log.args.fillHash);
          }
          break;
        }
        case 'Claimed':
          entries.push({ kind: 'claim', marketHash: log.args.marketHash, bettor: log.args.bettor, txHash: log.transactionHash });
          break;
        case 'Refunded': {
          const refundId = this.refundIds.get(log.args.refundKey);
          if (refundId === undefined) break;
          this.refundIds.delete(log.args.refundKey);
          entries.push({ kind: 'refund', refundId, txHash: log.transactionHash });
          break;
        }
        default:
          break;
      }
    }
    // The cursor moves past every range that held anything, so a restart does not go over it again.
    if (logs.length > 0) this.o.sink.events(entries, Number(to), Number(from), toBlock.hash);
    for (const fillHash of reported) this.sent.delete(fillHash);
    this.cursor = to;
    this.cursorHash = toBlock.hash;
  }

  private fillEntry(fillHash: string, execution: ChainExecution): ChainEntry {
    return { kind: 'fill', fillHash, execution };
  }

  private async failureEntry(fillHash: Hex, reason: Hex, txHash: Hex): Promise<ChainEntry | undefined> {
    const decoded = describeRevert(reason);
    if (!decoded.startsWith('FillAlreadySettled')) return this.fillEntry(fillHash, { executed: false, txHash, reason: decoded });
    // Sent again after a restart or a lost receipt: the first execution is the fill's transaction, reported with
    // its range unless the engine applied that range before the restart.
    const [first] = await this.pub.getContractEvents({
      address: this.o.deployment.settlement,
      abi: oddexSettlementAbi,
      eventName: 'FillSettled',
      args: { fillHash },
      fromBlock: BigInt(this.o.deployment.deployBlock),
    });
    return first ? this.fillEntry(fillHash, { executed: true, txHash: first.transactionHash }) : undefined;
  }

  // ---- escrow: refunds and outcomes ---------------------------------------------------------------------

  refundsPaid(refunds: readonly RefundPaid[]): void {
    for (const r of refunds) {
      const key = keccak256(encodePacked(['bytes32', 'address', 'bytes32'], [r.marketHash as Hex, r.bettor as Address, r.fillOrderHash as Hex]));
      this.refundIds.set(key, r.id);
      void this.retrying(`refund ${key}`, () => {
        const run = () => this.payRefund(r.marketHash as Hex, r.bettor as Address, r.amount, key);
        const sent = this.sending.then(run, run);
        this.sending = sent.then(() => undefined, () => undefined);
        return sent;
      });
    }
  }

  private async payRefund(marketHash: Hex, bettor: Address, amount: bigint, key: Hex): Promise<void> {
    await this.ready;
    this.assertSameChain();
    const read = { address: this.o.deployment.settlement, abi: oddexSettlementAbi } as const;
    if (await this.pub.readContract({ ...read, functionName: 'refundPaid', args: [key] })) return;
    const account = this.executor.account!;
    this.nonce ??= await this.pub.getTransactionCount({ address: account.address, blockTag: 'pending' });
    try {
      const hash = await this.executor.writeContract({ ...read, functionName: 'refund', args: [marketHash, bettor, amount, key], account, chain: this.chain, nonce: this.nonce, gas: 200_000n });
      this.nonce++;
      const receipt = await this.pub.waitForTransactionReceipt({ hash, timeout: this.o.receiptTimeoutMs, pollingInterval: this.o.pollMs });
      if (receipt.status !== 'success') throw new Error(`refund ${key} reverted in ${hash}`);
    } catch (err) {
      this.nonce = undefined;
      throw err;
    }
  }

  marketsReported(markets: ReportedMarket[]): void {
    for (const m of markets) void this.retrying(`report ${m.marketHash}`, () => this.asOperator(() => this.reportAndPay(m)));
  }

  /** Records the outcome (once) and pays every bettor not yet paid. */
  private async reportAndPay(m: ReportedMarket): Promise<void> {
    await this.ready;
    this.assertSameChain();
    const marketHash = m.marketHash as Hex;
    const read = { address: this.o.deployment.settlement, abi: oddexSettlementAbi } as const;
    const write = { ...read, account: this.operator.account!, chain: this.chain };
    if (!(await this.pub.readContract({ ...read, functionName: 'reported', args: [marketHash] }))) {
      // The bet type picks the commission rate the contract fixes for the market.
      await this.mined(await this.operator.writeContract({ ...write, functionName: m.parlay ? 'reportParlayOutcome' : 'reportOutcome', args: [marketHash, m.outcome] }));
    }
    const unpaid: Address[] = [];
    for (const bettor of m.bettors) {
      const position = await this.pub.readContract({ ...read, functionName: 'positions', args: [marketHash, bettor as Address] });
      if (!position[5]) unpaid.push(bettor as Address);
    }
    if (unpaid.length > 0) await this.mined(await this.operator.writeContract({ ...write, functionName: 'claimMany', args: [marketHash, unpaid] }));
  }

  private async mined(hash: Hex): Promise<void> {
    const receipt = await this.pub.waitForTransactionReceipt({ hash, timeout: this.o.receiptTimeoutMs, pollingInterval: this.o.pollMs });
    if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted`);
    await this.syncTo(receipt.blockNumber);
  }

  /** Runs an idempotent chain action until it succeeds, backing off; logs each failure. */
  private async retrying(what: string, action: () => Promise<unknown>): Promise<void> {
    for (let delay = 250; !this.stopped; delay = Math.min(delay * 2, 30_000)) {
      try {
        await action();
        return;
      } catch (err) {
        this.o.log.warn({ err, retryInMs: delay }, `settlement chain: ${what} failed; retrying`);
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  }

  /** Operator transactions one at a time, so their nonces follow each other. */
  private asOperator<T>(run: () => Promise<T>): Promise<T> {
    const result = this.operatorQueue.then(run, run);
    this.operatorQueue = result.catch(() => undefined);
    return result;
  }

  // ---- operator ------------------------------------------------------------------------------------

  /**
   * Demo mode on a chain: a demo wallet's orders are backed only once it approved the transfer proxy, which takes a
   * transaction of its own. Gives the wallet gas from the operator if it has too little, has it approve the proxy for
   * everything, and returns once the engine has seen the approval. Nothing to do for a wallet that approved already.
   */
  async prepareDemoWallet(privateKey: Hex): Promise<void> {
    this.assertSameChain();
    const wallet = createWalletClient({ account: privateKeyToAccount(privateKey), chain: this.chain, transport: http(this.o.rpcUrl, { retryCount: 0, timeout: 15_000 }) });
    const account = wallet.account;
    const token = { address: this.o.deployment.token, abi: oddexTokenAbi } as const;
    const allowance = await this.pub.readContract({ ...token, functionName: 'allowance', args: [account.address, this.o.deployment.proxy] });
    if (allowance >= DEMO_ALLOWANCE_FLOOR) return;
    if ((await this.pub.getBalance({ address: account.address })) < DEMO_WALLET_GAS) {
      await this.asOperator(async () =>
        this.mined(await this.operator.sendTransaction({ account: this.operator.account!, chain: this.chain, to: account.address, value: DEMO_WALLET_GAS })),
      );
    }
    await this.mined(await wallet.writeContract({ ...token, functionName: 'approve', args: [this.o.deployment.proxy, maxUint256], account, chain: this.chain }));
  }

  /**
   * Mints test tokens (the faucet) and returns once the engine has seen them. A node that cannot be reached or a mint
   * that fails is CHAIN_UNAVAILABLE with viem's short account of it, not an internal error.
   */
  mint(to: Address, amount: bigint): Promise<Hex> {
    return this.asOperator(async () => {
      this.assertSameChain();
      try {
        const hash = await this.operator.writeContract({
          address: this.o.deployment.token,
          abi: oddexTokenAbi,
          functionName: 'mint',
          args: [to, amount],
          account: this.operator.account!,
          chain: this.chain,
        });
        const receipt = await this.pub.waitForTransactionReceipt({ hash, timeout: this.o.receiptTimeoutMs, pollingInterval: this.o.pollMs });
        await this.syncTo(receipt.blockNumber);
        return hash;
      } catch (err) {
        if (err instanceof ExchangeError) throw err;
        const e = err as { shortMessage?: unknown; details?: unknown; message?: unknown };
        const why = [e.shortMessage ?? e.message, e.details].filter((x) => typeof x === 'string' && x !== '').join(' ');
        throw new ExchangeError('CHAIN_UNAVAILABLE', `the settlement chain did not confirm the mint: ${why}`);
      }
    });
  }
}

/** Gas a demo wallet is given for its approval (and left with), and the allowance below which it approves again. */
const DEMO_WALLET_GAS = 10n ** 17n;
const DEMO_ALLOWANCE_FLOOR = maxUint256 / 2n;

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

/** A revert's data as `ErrorName(arg, ...)`, or the raw bytes when no known error matches. */
export function describeRevert(data: Hex): string {
  try {
    const { errorName, args } = decodeErrorResult({ abi: settlementCallAbi, data });
    return `${errorName}(${(args ?? []).map(String).join(', ')})`;
  } catch {
    return data === '0x' ? 'reverted without a reason' : `reverted with ${data}`;
  }
}

export type { Address };

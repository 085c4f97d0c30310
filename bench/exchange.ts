// The exchange as a child process for the HTTP benches: demo catalogue, no rate limits, an admin token, funded
// accounts and presigned commands (signed with the native addon; see signDigestNative).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { loadConfig } from '../src/config.js';
import { orderHash, personalMessageDigest, type OrderHashFields } from '../src/protocol/hashing.js';
import { cancelV2Digest, fillDigest, type FillRequest } from '../src/protocol/eip712.js';
import { fixedHexToBytes } from '../src/protocol/hex.js';
import { publicKeyToAddress } from '../src/protocol/signatures.js';
import { spawnExchange } from '../test/helpers/process.js';
import { httpClient, signDigestNative, signedOrderBody } from './lib.js';

const ADMIN = 'bench-admin';
export const E18 = 10n ** 18n;
export const USDC = 1_000_000n;
/** A fixed executor, so orders can be signed before the server (which otherwise generates one per deployment) starts. */
export const EXECUTOR = '0x52adf738AAD93c31f798a30b2C74D658e1E9a562';
export const config = loadConfig({ ODDEX_EXECUTOR_ADDRESS: EXECUTOR }, []);

export interface Account {
  key: Uint8Array;
  address: string;
}

export function newAccount(): Account {
  const key = secp256k1.utils.randomSecretKey();
  return { key, address: publicKeyToAddress(secp256k1.getPublicKey(key, false)) };
}

const randomUint256 = () => BigInt('0x' + randomBytes(32).toString('hex'));
const hexBytes = (hex: string) => fixedHexToBytes(hex, 32)!;

/** A signed POST /orders/new item and its hash. */
export function signedOrder(maker: Account, market: string, o: { odds: bigint; size: bigint; outcomeOne: boolean; salt?: bigint }) {
  const expiry = BigInt(Math.floor(Date.now() / 1000) + 3600);
  const fields: OrderHashFields = {
    marketHash: market,
    baseToken: config.baseTokenAddress,
    totalBetSize: o.size,
    percentageOdds: o.odds,
    expiry,
    salt: o.salt ?? randomUint256(),
    maker: maker.address,
    executor: config.executorAddress,
    isMakerBettingOutcomeOne: o.outcomeOne,
  };
  return signedOrderBody(fields, maker.key, (f, key) => signDigestNative(personalMessageDigest(hexBytes(orderHash(f))), key));
}

export function signedCancelV2(maker: Account, orderHashes: string[]) {
  const salt = '0x' + randomBytes(32).toString('hex');
  const timestamp = BigInt(Math.floor(Date.now() / 1000));
  const domain = { name: config.domainNames.cancelV2, version: '1.0', chainId: config.chainId, salt };
  const digest = cancelV2Digest(domain, { orderHashes, timestamp });
  return { orderHashes, signature: signDigestNative(hexBytes(digest), maker.key), salt, maker: maker.address, timestamp: Number(timestamp) };
}

export function signedFill(taker: Account, market: string, f: { stake: bigint; odds: bigint; outcomeOne: boolean }) {
  const fill: FillRequest = {
    market,
    baseToken: config.baseTokenAddress,
    stakeWei: f.stake,
    desiredOdds: f.odds,
    oddsSlippage: 0,
    isTakerBettingOutcomeOne: f.outcomeOne,
    fillSalt: randomUint256(),
  };
  const domain = { name: config.domainNames.fill, version: config.domainVersion, chainId: config.chainId, verifyingContract: config.eip712FillHasher };
  return {
    market,
    baseToken: fill.baseToken,
    isTakerBettingOutcomeOne: fill.isTakerBettingOutcomeOne,
    stakeWei: fill.stakeWei.toString(),
    desiredOdds: fill.desiredOdds.toString(),
    oddsSlippage: 0,
    fillSalt: fill.fillSalt.toString(),
    taker: taker.address,
    takerSig: signDigestNative(hexBytes(fillDigest(domain, fill)), taker.key),
  };
}

export type BenchExchange = Awaited<ReturnType<typeof startBenchExchange>>;

/**
 * Starts `src/main.ts` on a fresh data dir. `env` adds or overrides ODDEX_* settings; `maxSockets` caps the
 * client's keep-alive connections (requests beyond it wait in the client).
 */
export async function startBenchExchange(env: Record<string, string> = {}, maxSockets?: number, root?: string) {
  const dataDir = mkdtempSync(join(tmpdir(), 'oddex-bench-'));
  const server = await spawnExchange({
    ODDEX_DATA_DIR: dataDir,
    ODDEX_ADMIN_TOKEN: ADMIN,
    ODDEX_DEMO: 'true',
    ODDEX_RATE_LIMITS: 'false',
    ODDEX_LOG_LEVEL: 'warn',
    ODDEX_MAX_ORDERS_PER_REQUEST: '1000',
    ODDEX_DELAY_PREGAME_MS: '0',
    ODDEX_EXECUTOR_ADDRESS: EXECUTOR,
    ...env,
  }, root);
  const request = httpClient(server.url, maxSockets);
  const post = async (path: string, body: unknown, admin = false) => {
    const res = await request('POST', path, body, admin ? { authorization: `Bearer ${ADMIN}` } : {});
    return { status: res.status, body: JSON.parse(res.body) as { data?: Record<string, unknown>; errorCode?: string } };
  };
  const active = JSON.parse((await request('GET', '/markets/active?pageSize=100&type=52')).body) as {
    data: { markets: { marketHash: string; liveEnabled: boolean }[] };
  };
  return {
    pid: server.child.pid!,
    url: server.url,
    request,
    post,
    /** Pre-game demo markets (no betting delay). */
    markets: active.data.markets.filter((m) => !m.liveEnabled).map((m) => m.marketHash),
    async fund(account: Account, amount = 10n ** 12n * USDC) {
      const r = await post('/admin/faucet', { address: account.address, amount: amount.toString() }, true);
      if (r.status !== 200) throw new Error(`faucet refused: ${JSON.stringify(r.body)}`);
    },
    async close() {
      server.child.kill('SIGTERM');
      await server.exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

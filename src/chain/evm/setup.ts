// ODDEX_CHAIN=evm: reads the deployment, points the exchange's configuration at the deployed contracts and builds
// the EVM chain for the runner. The server reads only the pointed configuration, so /metadata, the signature
// checks and the contracts cannot disagree.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { defaultConfig, type Config } from '../../config.js';
import type { Engine } from '../../engine/engine.js';
import type { ChainSink } from '../settlement-chain.js';
import type { Deployment } from './deploy.js';
import { DEV_EXECUTOR_KEY, DEV_OPERATOR_KEY } from './dev-accounts.js';
import { EvmChain } from './evm-chain.js';

export const deploymentFileOf = (config: Config) => config.evm.deploymentFile ?? join(config.dataDir, 'evm-deployment.json');

export function readDeployment(config: Config): Deployment {
  const file = deploymentFileOf(config);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new Error(`ODDEX_CHAIN=evm needs the deployment file ${file}: run \`npm run chain\` or set ODDEX_EVM_DEPLOYMENT`);
  }
  const d = JSON.parse(text) as Deployment;
  for (const key of ['token', 'proxy', 'settlement', 'executor'] as const) {
    if (!/^0x[0-9a-fA-F]{40}$/.test(String(d[key]))) throw new Error(`${file}: ${key} is not an address`);
  }
  for (const key of ['chainId', 'tokenDecimals'] as const) {
    if (!Number.isInteger(d[key])) throw new Error(`${file}: ${key} is not an integer`);
  }
  // Files written before the domain and token details were recorded lack them: guessing could name a domain the
  // contract does not verify.
  for (const key of ['tokenSymbol', 'domainName', 'domainVersion'] as const) {
    if (typeof d[key] !== 'string' || d[key] === '') throw new Error(`${file}: ${key} is missing; deploy again with \`npm run chain\``);
  }
  // The fees the contract charges, which the server charges too. A file without them was written for a settlement
  // contract from before fees and cash outs, whose calls no longer match: it must be deployed again.
  if (typeof d.fees !== 'object' || d.fees === null) {
    throw new Error(`${file}: fees are missing (a settlement contract from before fees and cash outs); deploy again with \`npm run chain\``);
  }
  for (const key of ['singlesBps', 'parlaysBps', 'cashoutBps', 'affiliateShareBps'] as const) {
    const bps = d.fees[key];
    if (!Number.isInteger(bps) || bps < 0 || bps > 10_000) throw new Error(`${file}: fees.${key} is not basis points (0 to 10000)`);
  }
  for (const key of ['account', 'affiliate'] as const) {
    if (!/^0x[0-9a-fA-F]{40}$/.test(String(d.fees[key]))) throw new Error(`${file}: fees.${key} is not an address`);
  }
  return d;
}

/**
 * The values the deployment defines, by the setting that could say otherwise. The last three have no environment
 * setting; only a configuration built in code can set them.
 */
const DEFINED_BY_DEPLOYMENT: readonly [setting: string, value: (c: Config) => string | number][] = [
  ['ODDEX_CHAIN_ID', (c) => c.chainId],
  ['ODDEX_EXECUTOR_ADDRESS', (c) => c.executorAddress.toLowerCase()],
  ['ODDEX_FILL_HASHER_ADDRESS', (c) => c.eip712FillHasher.toLowerCase()],
  ['ODDEX_BASE_TOKEN_ADDRESS', (c) => c.baseTokenAddress.toLowerCase()],
  ['ODDEX_DOMAIN_FILL', (c) => c.domainNames.fill],
  ['ODDEX_DOMAIN_VERSION', (c) => c.domainVersion],
  ['tokenTransferProxy', (c) => c.tokenTransferProxy.toLowerCase()],
  ['baseTokenSymbol', (c) => c.baseTokenSymbol],
  ['baseTokenDecimals', (c) => c.baseTokenDecimals],
  ['ODDEX_FEE_SINGLES_BPS', (c) => c.fees.singlesBps],
  ['ODDEX_FEE_PARLAYS_BPS', (c) => c.fees.parlaysBps],
  ['ODDEX_CASHOUT_FEE_BPS', (c) => c.fees.cashoutBps],
  ['ODDEX_AFFILIATE_SHARE_BPS', (c) => c.fees.affiliateShareBps],
  ['ODDEX_FEE_ACCOUNT', (c) => c.fees.account.toLowerCase()],
  ['exchangeAffiliate', (c) => c.exchangeAffiliate.toLowerCase()],
];

/**
 * The configuration with every address, id and signing value from the deployment: the chain id, the executor,
 * the token (address, symbol, decimals), the transfer proxy wallets approve, and the fill domain (the settlement
 * contract is its verifyingContract, EIP712FillHasher; its name and version were fixed when it was deployed), and
 * the fees the contract charges (rates, fee account, affiliate).
 * Defaults are the local ledger's placeholders and give way silently; a value configured otherwise that
 * contradicts the deployment stops the start, since the operator meant another deployment than the one found.
 */
export function pointAtDeployment(config: Config, d: Deployment, file: string): Config {
  const pointed: Config = {
    ...config,
    chainId: d.chainId,
    executorAddress: d.executor,
    eip712FillHasher: d.settlement,
    tokenTransferProxy: d.proxy,
    baseTokenAddress: d.token,
    baseTokenSymbol: d.tokenSymbol,
    baseTokenDecimals: d.tokenDecimals,
    domainNames: { ...config.domainNames, fill: d.domainName },
    domainVersion: d.domainVersion,
    // The contract charges these (deploy.ts).
    fees: { singlesBps: d.fees.singlesBps, parlaysBps: d.fees.parlaysBps, cashoutBps: d.fees.cashoutBps, affiliateShareBps: d.fees.affiliateShareBps, account: d.fees.account },
    exchangeAffiliate: d.fees.affiliate,
  };
  const defaults = defaultConfig();
  for (const [setting, value] of DEFINED_BY_DEPLOYMENT) {
    if (value(config) === value(defaults) || value(config) === value(pointed)) continue;
    throw new Error(
      `${setting} is ${String(value(config))} but the deployment in ${file} has ${String(value(pointed))}: with ODDEX_CHAIN=evm the deployment ` +
        'defines it; remove the setting (ODDEX_COMPAT sets several) or point ODDEX_EVM_DEPLOYMENT at the deployment meant',
    );
  }
  return pointed;
}

export interface EvmSetup {
  /** The configuration pointed at the deployment (pointAtDeployment): the only one the server reads. */
  config: Config;
  deployment: Deployment;
  createChain(sink: ChainSink, engine: () => Engine): EvmChain;
  /** The chain once the runner has created it. */
  chain(): EvmChain | undefined;
}

export function setUpEvm(config: Config, log: EvmChainLog): EvmSetup {
  const deployment = readDeployment(config);
  const pointed = pointAtDeployment(config, deployment, deploymentFileOf(config));
  const executorKey = (config.evm.executorKey ?? DEV_EXECUTOR_KEY) as Hex;
  const operatorKey = (config.evm.operatorKey ?? DEV_OPERATOR_KEY) as Hex;
  const executor = privateKeyToAccount(executorKey).address;
  if (executor.toLowerCase() !== deployment.executor.toLowerCase()) {
    throw new Error(`the executor key is for ${executor} but the settlement contract's executor is ${deployment.executor}`);
  }
  const rpcUrl = config.evm.rpcUrl ?? deployment.rpcUrl;
  let chain: EvmChain | undefined;
  return {
    config: pointed,
    deployment,
    chain: () => chain,
    createChain: (sink, engine) =>
      (chain = new EvmChain({
        rpcUrl,
        deployment,
        executorKey,
        operatorKey,
        sink,
        cursor: () => engine().chainCursor,
        batchSize: config.evm.batchSize,
        batchGas: BigInt(config.evm.batchGas),
        batchWaitMs: config.evm.batchWaitMs,
        pollMs: config.evm.pollMs,
        log,
      })),
  };
}

type EvmChainLog = ConstructorParameters<typeof EvmChain>[0]['log'];

// ODDEX_CHAIN=evm, the configuration's part: reads the deployment file `npm run chain` writes and points the
// exchange's configuration at the deployed contracts. Pure (a file read, no chain client, no keys): the sequencer's
// process (setup.ts) and every gateway (gateway.ts) point their configuration here, from the same file, so their
// /metadata and signature checks agree with each other and with the contracts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultConfig, type Config } from '../../config.js';
import type { Deployment } from './deploy.js';
import { SetupError } from '../../setup-error.js';

export const deploymentFileOf = (config: Config) => config.evm.deploymentFile ?? join(config.dataDir, 'evm-deployment.json');

/**
 * The deployment file's contents, checked. `missing` says what to do when the file cannot be read: the sequencer's
 * process deploys (`npm run chain`), a gateway is given the sequencer's file.
 */
export function readDeployment(config: Config, missing = 'run `npm run chain` or set ODDEX_EVM_DEPLOYMENT'): Deployment {
  const file = deploymentFileOf(config);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new SetupError(`ODDEX_CHAIN=evm needs the deployment file ${file}: ${missing}`);
  }
  let d: Deployment;
  try {
    d = JSON.parse(text) as Deployment;
  } catch {
    throw new SetupError(`${file} is not JSON: give the deployment file \`npm run chain\` wrote (ODDEX_EVM_DEPLOYMENT)`);
  }
  if (typeof d !== 'object' || d === null) throw new SetupError(`${file} is not a deployment file (ODDEX_EVM_DEPLOYMENT)`);
  for (const key of ['token', 'proxy', 'settlement', 'executor'] as const) {
    if (!/^0x[0-9a-fA-F]{40}$/.test(String(d[key]))) throw new SetupError(`${file}: ${key} is not an address`);
  }
  for (const key of ['chainId', 'tokenDecimals'] as const) {
    if (!Number.isInteger(d[key])) throw new SetupError(`${file}: ${key} is not an integer`);
  }
  // Files written before the domain and token details were recorded lack them: guessing could name a domain the
  // contract does not verify.
  for (const key of ['tokenSymbol', 'domainName', 'domainVersion'] as const) {
    if (typeof d[key] !== 'string' || d[key] === '') throw new SetupError(`${file}: ${key} is missing; deploy again with \`npm run chain\``);
  }
  // The fees the contract charges, which the server charges too. A file without them was written for a settlement
  // contract from before fees and cash outs, whose calls no longer match: it must be deployed again.
  if (typeof d.fees !== 'object' || d.fees === null) {
    throw new SetupError(`${file}: fees are missing (a settlement contract from before fees and cash outs); deploy again with \`npm run chain\``);
  }
  for (const key of ['singlesBps', 'parlaysBps', 'cashoutBps', 'affiliateShareBps'] as const) {
    const bps = d.fees[key];
    if (!Number.isInteger(bps) || bps < 0 || bps > 10_000) throw new SetupError(`${file}: fees.${key} is not basis points (0 to 10000)`);
  }
  for (const key of ['account', 'affiliate'] as const) {
    if (!/^0x[0-9a-fA-F]{40}$/.test(String(d.fees[key]))) throw new SetupError(`${file}: fees.${key} is not an address`);
  }
  return d;
}

/**
 * The values the deployment defines, by the setting that could say otherwise. Those not named ODDEX_* have no
 * environment setting; only a configuration built in code can set them.
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
  ['ODDEX_AFFILIATE_ADDRESS', (c) => c.exchangeAffiliate.toLowerCase()],
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

/** The configuration pointed at the deployment the configuration names (readDeployment, then pointAtDeployment). */
export function configFromDeployment(config: Config, missing?: string): { config: Config; deployment: Deployment } {
  const deployment = readDeployment(config, missing);
  return { config: pointAtDeployment(config, deployment, deploymentFileOf(config)), deployment };
}

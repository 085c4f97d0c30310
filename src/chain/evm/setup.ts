// ODDEX_CHAIN=evm: reads the deployment, points the exchange's configuration at the deployed contracts (so
// /metadata reports the real addresses and chain id) and builds the EVM chain for the runner.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { Config } from '../../config.js';
import type { Engine } from '../../engine/engine.js';
import type { ChainSink } from '../settlement-chain.js';
import type { Deployment } from './deploy.js';
import { DEV_EXECUTOR_KEY, DEV_OPERATOR_KEY } from './dev-accounts.js';
import { EvmChain } from './evm-chain.js';
import { settlementArgsOf } from './fill-args.js';

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
  if (!Number.isInteger(d.chainId)) throw new Error(`${file}: chainId is not an integer`);
  return d;
}

export interface EvmSetup {
  /** The configuration pointed at the deployment. */
  config: Config;
  deployment: Deployment;
  createChain(sink: ChainSink, engine: () => Engine): EvmChain;
  /** The chain once the runner has created it. */
  chain(): EvmChain | undefined;
}

export function setUpEvm(config: Config, log: EvmChainLog): EvmSetup {
  const deployment = readDeployment(config);
  const executorKey = (config.evm.executorKey ?? DEV_EXECUTOR_KEY) as Hex;
  const operatorKey = (config.evm.operatorKey ?? DEV_OPERATOR_KEY) as Hex;
  const executor = privateKeyToAccount(executorKey).address;
  if (executor.toLowerCase() !== deployment.executor.toLowerCase()) {
    throw new Error(`the executor key is for ${executor} but the settlement contract's executor is ${deployment.executor}`);
  }
  const rpcUrl = config.evm.rpcUrl ?? deployment.rpcUrl;
  const pointed: Config = {
    ...config,
    chainId: deployment.chainId,
    baseTokenAddress: deployment.token,
    eip712FillHasher: deployment.settlement,
    executorAddress: deployment.executor,
  };
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
        fillArgs: (fillHash) => settlementArgsOf(engine(), fillHash),
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

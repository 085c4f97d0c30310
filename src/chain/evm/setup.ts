// ODDEX_CHAIN=evm in the sequencer's process: the configuration pointed at the deployment (deployment-config.ts,
// as a gateway points its own) and the EVM chain for the runner. The server reads only the pointed configuration,
// so /metadata, the signature checks and the contracts cannot disagree.
import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { Config } from '../../config.js';
import type { Engine } from '../../engine/engine.js';
import type { ChainSink } from '../settlement-chain.js';
import type { Deployment } from './deploy.js';
import { DEV_EXECUTOR_KEY, DEV_OPERATOR_KEY } from './dev-accounts.js';
import { EvmChain } from './evm-chain.js';
import { configFromDeployment, deploymentFileOf } from './deployment-config.js';
import { SetupError } from '../../setup-error.js';

export interface EvmSetup {
  /** The configuration pointed at the deployment (pointAtDeployment): the only one the server reads. */
  config: Config;
  deployment: Deployment;
  createChain(sink: ChainSink, engine: () => Engine): EvmChain;
  /** The chain once the runner has created it. */
  chain(): EvmChain | undefined;
}

export function setUpEvm(config: Config, log: EvmChainLog): EvmSetup {
  const { config: pointed, deployment } = configFromDeployment(config);
  const executorKey = (config.evm.executorKey ?? DEV_EXECUTOR_KEY) as Hex;
  const operatorKey = (config.evm.operatorKey ?? DEV_OPERATOR_KEY) as Hex;
  const executor = privateKeyToAccount(executorKey).address;
  if (executor.toLowerCase() !== deployment.executor.toLowerCase()) {
    throw new SetupError(
      `ODDEX_EXECUTOR_KEY is the key of ${executor} but the deployment in ${deploymentFileOf(config)} has the executor ${deployment.executor}: ` +
        'give the key of the executor the settlement contract was deployed with',
    );
  }
  // The operator alone mints (the faucet) and reports outcomes and payouts: with another key, reports would be taken
  // and never reach the chain, every one of its transactions reverting.
  const operator = privateKeyToAccount(operatorKey).address;
  if (operator.toLowerCase() !== deployment.operator.toLowerCase()) {
    throw new SetupError(
      `ODDEX_OPERATOR_KEY is the key of ${operator} but the deployment in ${deploymentFileOf(config)} has the operator ${deployment.operator}: ` +
        'give the key of the account that deployed the contracts',
    );
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
        cursorHash: () => engine().chainCursorHash,
        batchSize: config.evm.batchSize,
        batchGas: BigInt(config.evm.batchGas),
        batchWaitMs: config.evm.batchWaitMs,
        pollMs: config.evm.pollMs,
        receiptTimeoutMs: config.evm.receiptTimeoutMs,
        log,
      })),
  };
}

type EvmChainLog = ConstructorParameters<typeof EvmChain>[0]['log'];

// `npm run chain`: a local chain for development. Starts anvil from the npm package on 127.0.0.1, deploys the
// contracts, funds the demo wallets (tokens minted and the transfer proxy approved) and writes the deployment
// file that `ODDEX_CHAIN=evm npm start` reads. Runs until interrupted; anvil stops with it. The chain's state is kept in
// the data dir (anvil-state.json, written at the stop): run again, it restores that chain, which the
// data dir's journal followed, instead of deploying on a fresh one the journal would find diverged.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createPublicClient, createWalletClient, http, maxUint256 } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { loadConfig } from '../../config.js';
import { startAnvil } from './anvil.js';
import { oddexTokenAbi } from './contracts.js';
import { chainFeesOf, deployContracts } from './deploy.js';
import { DEV_DEMO_KEYS, DEV_EXECUTOR_KEY, DEV_OPERATOR_KEY } from './dev-accounts.js';
import { deploymentFileOf, readDeployment } from './deployment-config.js';
import { DB_FILE } from '../../store/sqlite/db.js';
import { stopOnSignals } from '../../stop-signals.js';

const DEMO_FUNDS = 10_000n * 10n ** 6n;

const config = loadConfig(process.env, process.argv.slice(2));
const file = deploymentFileOf(config);
const stateFile = join(config.dataDir, 'anvil-state.json');
const restoring = existsSync(stateFile) && existsSync(file);
if (!restoring && existsSync(file) && existsSync(join(config.dataDir, DB_FILE))) {
  console.error(
    `npm run chain: ${config.dataDir} holds a journal that followed the chain in ${file}, whose state was not kept ` +
      `(no ${stateFile}): a fresh chain is not that one, and the exchange would refuse it (CHAIN_DIVERGED). ` +
      'Start with another ODDEX_DATA_DIR, or remove this one.',
  );
  process.exit(1);
}
const anvil = await startAnvil({
  port: Number(process.env.ODDEX_ANVIL_PORT ?? 8545),
  chainId: Number(process.env.ODDEX_ANVIL_CHAIN_ID ?? 31337),
  stateFile,
});
// Under `npm run chain`, npm's SIGTERM reaches neither this process nor anvil: it follows npm out instead.
stopOnSignals(() => void anvil.stop().then(() => process.exit(0)), { watchParent: process.env.npm_lifecycle_event === 'chain' });
const transport = http(anvil.rpcUrl);
const chain = { id: anvil.chainId, name: 'anvil', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [anvil.rpcUrl] } } };
const pub = createPublicClient({ chain, transport });

if (restoring) {
  const deployment = readDeployment(config);
  if (!(await pub.getCode({ address: deployment.token }))) {
    console.error(`npm run chain: ${stateFile} holds no token at ${deployment.token}, which ${file} names: not the chain deployed there`);
    await anvil.stop();
    process.exit(1);
  }
  console.log(`anvil on ${anvil.rpcUrl} (chain ${anvil.chainId}) restored from ${stateFile} at block ${await pub.getBlockNumber()}; token ${deployment.token}, settlement ${deployment.settlement}`);
  console.log(`deployment in ${file}; now run: ODDEX_CHAIN=evm npm start`);
} else {
  const deployment = await deployContracts({
    rpcUrl: anvil.rpcUrl,
    operatorKey: DEV_OPERATOR_KEY,
    executor: privateKeyToAccount(DEV_EXECUTOR_KEY).address,
    domainName: config.domainNames.fill,
    domainVersion: config.domainVersion,
    fees: chainFeesOf({ ...config.fees, affiliate: config.exchangeAffiliate }),
  });
  const operator = createWalletClient({ account: privateKeyToAccount(DEV_OPERATOR_KEY), chain, transport });
  for (const key of DEV_DEMO_KEYS) {
    const wallet = createWalletClient({ account: privateKeyToAccount(key), chain, transport });
    const address = wallet.account.address;
    await pub.waitForTransactionReceipt({ hash: await operator.writeContract({ address: deployment.token, abi: oddexTokenAbi, functionName: 'mint', args: [address, DEMO_FUNDS] }) });
    await pub.waitForTransactionReceipt({ hash: await wallet.writeContract({ address: deployment.token, abi: oddexTokenAbi, functionName: 'approve', args: [deployment.proxy, maxUint256] }) });
    console.log(`demo wallet ${address}: ${DEMO_FUNDS / 10n ** 6n} USDC, proxy approved`);
  }
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, JSON.stringify(deployment, null, 2) + '\n');
  console.log(`anvil on ${anvil.rpcUrl} (chain ${anvil.chainId}); token ${deployment.token}, proxy ${deployment.proxy}, settlement ${deployment.settlement}`);
  console.log(`deployment written to ${file}; now run: ODDEX_CHAIN=evm npm start`);
}

// `npm run funds-check`: prints, for the deployment the exchange uses (ODDEX_EVM_DEPLOYMENT or the data dir's),
// the sum of wallet balances, escrow and what was minted; exits 1 unless they agree to the wei.
import { createPublicClient, http } from 'viem';
import { loadConfig } from '../../config.js';
import { checkFunds } from './funds.js';
import { readDeployment } from './deployment-config.js';

const config = loadConfig(process.env, process.argv.slice(2));
const deployment = readDeployment(config);
const pub = createPublicClient({ transport: http(config.evm.rpcUrl ?? deployment.rpcUrl) });
const report = await checkFunds(pub, deployment);
console.log(JSON.stringify(report, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v), 2));
if (!report.agrees) {
  console.error('funds do NOT agree');
  process.exitCode = 1;
}

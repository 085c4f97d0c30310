// The compiled contracts: typed ABIs from the generated module, bytecode from the committed artifacts.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Hex } from 'viem';

import { oddexSettlementAbi, oddexTokenAbi, tokenTransferProxyAbi } from './abis.generated.js';

export { oddexSettlementAbi, oddexTokenAbi, tokenTransferProxyAbi };

const ARTIFACT_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'contracts', 'artifacts');

export function bytecodeOf(name: 'OddexToken' | 'TokenTransferProxy' | 'OddexSettlement'): Hex {
  return (JSON.parse(readFileSync(join(ARTIFACT_DIR, `${name}.json`), 'utf8')) as { bytecode: Hex }).bytecode;
}

/** Settlement's ABI plus the token's and the proxy's errors, which a settlement call can revert with. */
export const settlementCallAbi = [
  ...oddexSettlementAbi,
  ...oddexTokenAbi.filter((item) => item.type === 'error' && !oddexSettlementAbi.some((s) => s.type === 'error' && s.name === item.name)),
  ...tokenTransferProxyAbi.filter((item) => item.type === 'error' && item.name === 'NotAuthorised'),
] as const;

// The committed contract artifacts are what the pinned solc makes of the committed sources, offline.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import solc from 'solc';
import pkg from '../../package.json' with { type: 'json' };
import { ABI_MODULE, ARTIFACT_DIR, abiModule, artifactJson, compileContracts } from '../../contracts/compile.js';

describe('contract artifacts', () => {
  it('match a fresh compile with the pinned compiler, byte for byte', () => {
    expect(pkg.devDependencies.solc).toMatch(/^\d+\.\d+\.\d+$/);
    expect(solc.version()).toMatch(new RegExp(`^${pkg.devDependencies.solc.replace(/\./g, '\\.')}\\+commit\\.`));
    const fresh = compileContracts();
    expect(fresh.map((a) => a.contractName)).toEqual(['OddexToken', 'TokenTransferProxy', 'OddexSettlement']);
    for (const artifact of fresh) {
      expect(readFileSync(join(ARTIFACT_DIR, `${artifact.contractName}.json`), 'utf8')).toBe(artifactJson(artifact));
    }
    expect(readFileSync(ABI_MODULE, 'utf8')).toBe(abiModule(fresh));
  }, 120_000);
});

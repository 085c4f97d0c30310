// `npm run contracts:build`: compiles and writes contracts/artifacts/<Name>.json and the typed ABI module, both
// committed (a test checks they match a fresh compile).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ABI_MODULE, ARTIFACT_DIR, abiModule, artifactJson, compileContracts } from './compile.js';

const artifacts = compileContracts();
mkdirSync(ARTIFACT_DIR, { recursive: true });
for (const artifact of artifacts) {
  writeFileSync(join(ARTIFACT_DIR, `${artifact.contractName}.json`), artifactJson(artifact));
  console.log(`${artifact.contractName}: ${(artifact.bytecode.length - 2) / 2} bytes`);
}
writeFileSync(ABI_MODULE, abiModule(artifacts));

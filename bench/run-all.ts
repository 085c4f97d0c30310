// npm run bench: every benchmark in turn, each printing its own figures (soak.ts runs for minutes: run it alone).
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';

const scripts = readdirSync(new URL('.', import.meta.url)).filter((f) => f.endsWith('.ts') && !['lib.ts', 'run-all.ts', 'soak.ts'].includes(f));
for (const script of scripts) {
  console.log(`\n== bench/${script}`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', `bench/${script}`], { stdio: 'inherit' });
  if (r.status !== 0) process.exitCode = 1;
}

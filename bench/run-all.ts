// npm run bench: every benchmark in turn, each printing its own figures. Left out: the shared modules, soak.ts (runs for
// minutes: run it alone) and the tools that need input files (a profile, heap snapshots, a built history dir).
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';

const scripts = readdirSync(new URL('.', import.meta.url)).filter(
  (f) => f.endsWith('.ts') && !['lib.ts', 'run-all.ts', 'exchange.ts', 'profile-top.ts', 'soak.ts', 'heap-diff.ts', 'trade-reads.ts'].includes(f),
);
for (const script of scripts) {
  console.log(`\n== bench/${script}`);
  const r = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', `bench/${script}`], { stdio: 'inherit' });
  if (r.status !== 0) process.exitCode = 1;
}

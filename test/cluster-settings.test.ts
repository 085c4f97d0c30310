// `npm run cluster` refuses a first port (ODDEX_PORT) that is not one, naming the setting, before it starts anything.
// That it listens on consecutive ports from the one given (it forced port 0 on every process) and prints a database URL
// given with a password masked (it printed it in clear) is checked on the cluster test/cluster.test.ts starts with
// those settings, so that CI starts one cluster, not two.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

const cluster = (env: Record<string, string>, args: string[] = []) =>
  spawn(process.execPath, ['--import', 'tsx', 'src/cluster/main.ts', ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });

describe('npm run cluster settings', () => {
  it('refuses a first port that is not one, naming the setting', async () => {
    const child = cluster({ ODDEX_PORT: 'eighty' });
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    const exited = new Promise((r) => child.once('exit', r));
    // A cluster that does not refuse it starts everything: stopped here rather than left running.
    let timer: NodeJS.Timeout | undefined;
    const code = await Promise.race([exited, new Promise((r) => (timer = setTimeout(() => r('still running'), 15_000)))]);
    clearTimeout(timer);
    if (code === 'still running') {
      child.kill('SIGTERM');
      await exited;
    }
    expect(code).toBe(2);
    expect(stderr).toMatch(/ODDEX_PORT must be 0 \(free ports\) or the first of 10 ports/);
  }, 30_000);
});

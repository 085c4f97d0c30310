// Vitest global setup of both projects: a dir for the run's template cluster. initdb runs once in it (at the first
// cluster a test starts) and every cluster of the run is a copy (src/local-services/postgres.ts, `templateDir`):
// initdb took about a second and a half each time, and a run starts a dozen clusters and more. Workers find the dir
// in ODDEX_TEST_PG_TEMPLATE_DIR; the project whose setup made it removes it after the run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  if (process.env.ODDEX_TEST_PG_TEMPLATE_DIR) return () => {};
  // As root under /tmp, where the postgres user makes the template (root's TMPDIR may be private to root).
  const dir = mkdtempSync(join(process.getuid?.() === 0 ? '/tmp' : tmpdir(), 'oddex-pg-template-'));
  process.env.ODDEX_TEST_PG_TEMPLATE_DIR = dir;
  return () => {
    rmSync(dir, { recursive: true, force: true });
    delete process.env.ODDEX_TEST_PG_TEMPLATE_DIR;
  };
}

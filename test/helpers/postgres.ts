// A throw-away PostgreSQL cluster per test file (src/local-services/postgres.ts); each test takes a database of its
// own on it.
import { afterAll, beforeAll } from 'vitest';
import { noPostgres, startPostgres as startLocalPostgres, type LocalPostgres } from '../../src/local-services/postgres.js';

export { noPostgres, postgresBinDir } from '../../src/local-services/postgres.js';
export type TestPostgres = LocalPostgres;

/**
 * A cluster of its own, as src/local-services/postgres.ts starts one; in a vitest run, copied from the run's template
 * (test/helpers/postgres-template-global.ts) rather than made by initdb.
 */
export const startPostgres = (opts: Parameters<typeof startLocalPostgres>[0] = {}) =>
  startLocalPostgres({ templateDir: process.env.ODDEX_TEST_PG_TEMPLATE_DIR || undefined, ...opts });

/** A suite's title, with the reason it is skipped when it is: `describe.skipIf(noPostgres)(postgresSuite('...'), ...)`. */
export const postgresSuite = (title: string) => (noPostgres ? `${title} (skipped: ${noPostgres})` : title);

/** A cluster for the test file: started before its tests, removed after them. Use with describe.skipIf(noPostgres). */
export function postgresForSuite(): () => TestPostgres {
  if (noPostgres) console.warn(`PostgreSQL tests skipped: ${noPostgres}`);
  let server: TestPostgres | undefined;
  beforeAll(async () => {
    if (!noPostgres) server = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });
  return () => server!;
}

// A test run's PostgreSQL clusters are copies of one made by initdb at the run's first (test/helpers/
// postgres-template-global.ts): each is a cluster of its own, running as a fresh one does (fsync on). The template
// itself is made by the same initdb that starts a cluster outside a test run.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { noPostgres, postgresForSuite, postgresSuite } from './helpers/postgres.js';

describe.skipIf(noPostgres)(postgresSuite('clusters copied from the run\'s template'), () => {
  const server = postgresForSuite();

  it('starts the suite\'s cluster from a copy of the template, a cluster of its own with fsync on', async () => {
    const templateDir = process.env.ODDEX_TEST_PG_TEMPLATE_DIR;
    expect(templateDir).toBeTruthy();
    const template = join(templateDir!, 'data');
    expect(readFileSync(join(template, 'PG_VERSION'), 'utf8')).toBe(readFileSync(join(server().dataDir, 'PG_VERSION'), 'utf8'));
    expect(server().dataDir.startsWith(templateDir!)).toBe(false);
    // Its own files: a running cluster's pid file is in its dir, none in the template's.
    expect([existsSync(join(server().dataDir, 'postmaster.pid')), existsSync(join(template, 'postmaster.pid'))]).toEqual([true, false]);
    const client = new pg.Client({ connectionString: await server().createDatabase('copied') });
    await client.connect();
    try {
      expect((await client.query('SHOW fsync')).rows[0].fsync).toBe('on');
      await client.query('CREATE TABLE t (v int); INSERT INTO t VALUES (1)');
      expect((await client.query('SELECT v FROM t')).rows).toEqual([{ v: 1 }]);
    } finally {
      await client.end();
    }
  });
});

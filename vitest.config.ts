import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import type { Reporter, TestModule } from 'vitest/node';

/** Ends the run with the plain "N passed, N failed, N skipped" line that CI reads. */
const plainSummary: Reporter = {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>) {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') counts.passed++;
        else if (state === 'failed') counts.failed++;
        else counts.skipped++;
      }
    }
    console.log(`\n${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`);
  },
};

/**
 * Black-box suites run a second time with every exchange on PostgreSQL (the `postgres` project): the trading flows,
 * the read side and realtime, through the public API only. Suites that open the SQLite files themselves stay on the
 * embedded store.
 */
const ON_BOTH_STORES = [
  'test/read-your-writes.test.ts',
  'test/consolidated.test.ts',
  'test/consolidated-feed.test.ts',
  'test/refunds.test.ts',
  'test/positions.test.ts',
  'test/price-history.test.ts',
  'test/cashout.test.ts',
  'test/cashout-partial.test.ts',
  'test/fill-or-kill.test.ts',
  'test/parlays.test.ts',
  'test/realtime-trading.test.ts',
  'test/catalogue-admin.test.ts',
  'test/user-api-keys.test.ts',
  'test/sdk-client.test.ts',
  'test/account-restrictions.test.ts',
];

export default defineConfig({
  // Tests use the client's source, not a build of it (tsconfig.json's `paths` says why).
  resolve: { alias: { '@oddex/sdk': fileURLToPath(new URL('./packages/sdk/src/index.ts', import.meta.url)) } },
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // A file per core, not vitest's default of one fewer than the cores (one at a time on a 2-core machine): most files
    // spend their time waiting on the servers, services and browsers they start, so a second file fills the idle
    // core. On 2 cores the whole run took 941 s two at a time; the last run one at a time took 1,377 s.
    maxWorkers: availableParallelism(),
    reporters: ['default', plainSummary],
    projects: [
      {
        extends: true,
        test: { name: 'sqlite', include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'packages/*/src/**/*.test.ts'], globalSetup: ['test/helpers/postgres-template-global.ts'] },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: ON_BOTH_STORES,
          env: { ODDEX_TEST_STORE: 'postgres' },
          globalSetup: ['test/helpers/postgres-template-global.ts', 'test/helpers/postgres-global.ts'],
        },
      },
    ],
  },
});

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

export default defineConfig({
  // Tests use the client's source, not a build of it (tsconfig.json's `paths` says why).
  resolve: { alias: { '@oddex/sdk': fileURLToPath(new URL('./packages/sdk/src/index.ts', import.meta.url)) } },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'packages/*/src/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    reporters: ['default', plainSummary],
  },
});

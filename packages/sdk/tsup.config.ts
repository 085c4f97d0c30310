// Builds the package: one ESM file and one .d.ts. The protocol code the client shares with the server
// (../../src/protocol) is bundled in, so dist/ stands alone; the package's dependencies stay imports.
import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm'],
  // Node and browsers alike: no Node built-in may be assumed (test/sdk-browser-bundle.test.ts checks the sources).
  platform: 'neutral',
  target: 'es2022',
  dts: true,
  clean: true,
});

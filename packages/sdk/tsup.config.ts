// Builds the package: one ESM file and one .d.ts. The protocol code the client shares with the server
// (../../src/protocol) is bundled in, so dist/ stands alone; the package's dependencies stay imports. The wire
// types derive from the server's TypeBox schemas (src/protocol/wire, imported as types only, so no TypeBox code is
// in index.js); the declarations inline the few TypeBox types they use, so index.d.ts imports nothing but the
// package's dependencies (test/sdk-package.test.ts checks it). TypeBox's declaration files import each other by
// relative paths without an extension; those go through the same resolver (ours all end in .js and need not).
import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm'],
  // Node and browsers alike: no Node built-in may be assumed (test/sdk-browser-bundle.test.ts checks the sources).
  platform: 'neutral',
  target: 'es2022',
  dts: { resolve: ['@sinclair/typebox', /^\.\.?\/(?!.*\.js$)/] },
  clean: true,
});

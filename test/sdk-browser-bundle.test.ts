// The client must load in a browser bundle (the web page builds on it): bundling @oddex/sdk for the browser
// platform must not pull in any Node built-in module, nor the server's own code or its WebAssembly keccak.
import { expect, it } from 'vitest';
import { build } from 'esbuild';
import { join } from 'node:path';

it('bundles packages/sdk for browsers without Node built-ins', async () => {
  const result = await build({
    entryPoints: [join(import.meta.dirname, '..', 'packages', 'sdk', 'src', 'index.ts')],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  expect(result.errors).toEqual([]);
  const inputs = Object.keys(result.metafile.inputs);
  expect(inputs.filter((i) => /^node:|src\/(api|engine|store|cli|trading|realtime)\//.test(i))).toEqual([]);
  expect(inputs.filter((i) => i.includes('node_modules/hash-wasm'))).toEqual([]);
  expect(inputs.some((i) => i.includes('node_modules/centrifuge'))).toBe(true);
  const code = result.outputFiles[0]!.text;
  expect(code).not.toMatch(/from\s*["']node:/);
  expect(code).not.toMatch(/require\(["'](fs|path|module|crypto)["']\)/);
});

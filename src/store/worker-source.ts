// Where a worker thread's code comes from (signature verification, the read-model projector). The exchange runs its TypeScript through tsx, which a worker
// thread does not inherit, and loading tsx inside each worker costs about half a second of CPU (its own loader
// thread and compiler). So a worker module written in TypeScript is bundled once per process with esbuild (the
// compiler tsx itself uses) into plain JavaScript, and every worker starts from that bundle in about 50 ms.
// Compiled JavaScript runs as it is; if bundling fails, the worker loads its module through tsx instead.
import { build, type Plugin } from 'esbuild';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

export interface WorkerSource {
  url: URL;
  workerData: { module: string };
}

const bundles = new Map<string, Promise<URL>>();
const require = createRequire(import.meta.url);

/**
 * Packages the bundle imports by their absolute file URL instead of containing them: a bundle is a data: URL, from
 * which a bare name cannot be resolved, and a native addon (better-sqlite3) finds its binary from its own place.
 */
const absoluteExternals = (names: readonly string[]): Plugin => ({
  name: 'absolute-externals',
  setup(b) {
    b.onResolve({ filter: new RegExp(`^(${names.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})$`) }, (args) => ({
      path: pathToFileURL(require.resolve(args.path)).href,
      external: true,
    }));
  },
});
const tsxEntry = new URL('../worker-entry.mjs', import.meta.url);

/** Bundles asynchronously (esbuild works in its own process), so the writer thread never waits for it. */
function bundle(moduleUrl: string, externals: readonly string[]): Promise<URL> {
  let url = bundles.get(moduleUrl);
  if (!url) {
    url = build({
      entryPoints: [fileURLToPath(moduleUrl)],
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      write: false,
      logLevel: 'silent',
      minify: true,
      // Native addons are required relative to the module (signatures.ts): resolve them from its real place.
      define: { 'import.meta.url': JSON.stringify(moduleUrl) },
      plugins: externals.length > 0 ? [absoluteExternals(externals)] : [],
    }).then((out) => new URL('data:text/javascript;base64,' + Buffer.from(out.outputFiles[0]!.contents).toString('base64')));
    url.catch(() => bundles.delete(moduleUrl));
    bundles.set(moduleUrl, url);
  }
  return url;
}

/** How to start a worker running `moduleUrl` (a file: URL of a .ts or .js module). */
export async function workerSource(moduleUrl: string, onBundleError: (err: unknown) => void, externals: readonly string[] = []): Promise<WorkerSource> {
  const workerData = { module: moduleUrl };
  if (!moduleUrl.endsWith('.ts')) return { url: new URL(moduleUrl), workerData };
  try {
    return { url: await bundle(moduleUrl, externals), workerData };
  } catch (err) {
    onBundleError(err);
    return { url: tsxEntry, workerData };
  }
}

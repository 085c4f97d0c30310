// Where a verification worker's code comes from. The exchange runs its TypeScript through tsx, which a worker
// thread does not inherit, and loading tsx inside each worker costs about half a second of CPU (its own loader
// thread and compiler). So a worker module written in TypeScript is bundled once per process with esbuild (the
// compiler tsx itself uses) into plain JavaScript, and every worker starts from that bundle in about 50 ms.
// Compiled JavaScript runs as it is; if bundling fails, the worker loads its module through tsx instead.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

export interface WorkerSource {
  url: URL;
  workerData: { module: string };
}

const bundles = new Map<string, Promise<URL>>();
const tsxEntry = new URL('../worker-entry.mjs', import.meta.url);

/** Bundles asynchronously (esbuild works in its own process), so the writer thread never waits for it. */
function bundle(moduleUrl: string): Promise<URL> {
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
    }).then((out) => new URL('data:text/javascript;base64,' + Buffer.from(out.outputFiles[0]!.contents).toString('base64')));
    url.catch(() => bundles.delete(moduleUrl));
    bundles.set(moduleUrl, url);
  }
  return url;
}

/** How to start a worker running `moduleUrl` (a file: URL of a .ts or .js module). */
export async function workerSource(moduleUrl: string, onBundleError: (err: unknown) => void): Promise<WorkerSource> {
  const workerData = { module: moduleUrl };
  if (!moduleUrl.endsWith('.ts')) return { url: new URL(moduleUrl), workerData };
  try {
    return { url: await bundle(moduleUrl), workerData };
  } catch (err) {
    onBundleError(err);
    return { url: tsxEntry, workerData };
  }
}

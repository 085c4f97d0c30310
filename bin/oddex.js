#!/usr/bin/env node
// The `oddex` command, run from the TypeScript source with no build step. Loading the CLI's modules one by one
// through tsx's loader hooks was about half of each command's start-up; instead the CLI is bundled with esbuild's API
// into one module that Node loads in one go. The bundle is kept in node_modules/.cache/oddex/ with the size and
// modification time of every file it was made of (and of this launcher, tsconfig.json and the packages it imports):
// a command runs it only when all of them are unchanged, and bundles again otherwise (bundling at every start would
// cost about as much as it saves). Packages are not bundled: the bundle imports each from the file Node resolves it
// to. tsconfig.json is named because the command may start anywhere; its `paths` has @oddex/sdk resolve to the
// client's source. Stack traces point into the TypeScript source (the bundle's inline source map). Should bundling
// or writing the bundle fail, the command runs through tsx, as `oddex migrate` always does.
import { Buffer } from 'node:buffer';
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import process from 'node:process';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(import.meta.dirname, '..');
const tsconfig = join(root, 'tsconfig.json');
const entry = join(root, 'src', 'cli', 'main.ts');
const cacheFile = join(root, 'node_modules', '.cache', 'oddex', 'cli.mjs');
/** The bundle's first line: this, then the [path, size, mtime] of every file it was made of. */
const MARK = '// oddex CLI bundle of ';

async function throughTsx(module) {
  const { register } = await import('tsx/esm/api');
  register({ tsconfig });
  await import(module);
}

/** [path, size, mtime] of a file, or undefined when it is gone. */
function fingerprint(path) {
  try {
    const s = statSync(path);
    return [path, s.size, s.mtimeMs];
  } catch {
    return undefined;
  }
}

/** The cached bundle's file, if every file it was made of is as it was then (its first line lists them). */
function cachedBundle() {
  let files;
  try {
    const text = readFileSync(cacheFile, 'utf8');
    files = JSON.parse(text.slice(MARK.length, text.indexOf('\n')));
  } catch {
    return undefined;
  }
  if (!Array.isArray(files) || files.length === 0) return undefined;
  for (const [path, size, mtime] of files) {
    const now = fingerprint(path);
    if (now === undefined || now[1] !== size || now[2] !== mtime) return undefined;
  }
  return cacheFile;
}

/** Bundles the CLI into the cache; returns the bundle's file, or undefined when esbuild cannot bundle or write it. */
async function bundle() {
  let esbuild;
  try {
    esbuild = await import('esbuild');
  } catch {
    return undefined;
  }
  const packages = new Set();
  /** Bare imports stay imports, of the file Node would load (the bundle is elsewhere); the sdk's alias is bundled. */
  const installedPackages = {
    name: 'installed-packages',
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, async (args) => {
        if (args.pluginData === 'installed-packages' || args.path.startsWith('node:')) return undefined;
        const found = await b.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: 'installed-packages' });
        if (found.errors.length > 0 || found.external || !found.path.split(sep).includes('node_modules')) return undefined;
        packages.add(found.path);
        return { path: pathToFileURL(found.path).href, external: true };
      });
    },
  };
  let out;
  try {
    out = await esbuild.build({
      entryPoints: [entry],
      absWorkingDir: root,
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      tsconfig,
      // As Node resolves an import: its `exports` conditions (no bundler-only `module`), else `main`.
      conditions: [],
      mainFields: ['main'],
      write: false,
      logLevel: 'silent',
      metafile: true,
      sourcemap: 'external',
      sourcesContent: false,
      outdir: dirname(cacheFile),
      plugins: [installedPackages],
    });
  } catch {
    return undefined;
  } finally {
    // The build service is a child process: the command must not wait for it to exit.
    esbuild.stop?.();
  }
  const code = out.outputFiles.find((f) => f.path.endsWith('.js')).text;
  const map = JSON.parse(out.outputFiles.find((f) => f.path.endsWith('.js.map')).text);
  // The source map, inline, counts the line of file names the bundle starts with.
  map.mappings = ';' + map.mappings;
  const sources = Object.keys(out.metafile.inputs).map((p) => join(root, p));
  const files = [fileURLToPath(import.meta.url), tsconfig, ...sources, ...[...packages].sort()].map(fingerprint);
  if (files.some((f) => f === undefined)) return undefined;
  // Written whole, then renamed: a command starting meanwhile loads the old bundle or the new, never half of one.
  const partial = `${cacheFile}.${process.pid}`;
  try {
    mkdirSync(dirname(cacheFile), { recursive: true });
    writeFileSync(partial, MARK + JSON.stringify(files) + '\n' + code + '//# sourceMappingURL=data:application/json;base64,' + Buffer.from(JSON.stringify(map)).toString('base64') + '\n');
    renameSync(partial, cacheFile);
    return cacheFile;
  } catch {
    // Not writable (an installation owned by another user): the caller runs the CLI through tsx.
    rmSync(partial, { force: true });
    return undefined;
  }
}

// `oddex migrate` works on the store itself, not through the exchange's API: the server side's own entry point.
if (process.argv[2] === 'migrate') await throughTsx('../src/migrate.ts');
else {
  const file = cachedBundle() ?? (await bundle());
  if (file === undefined) await throughTsx('../src/cli/main.ts');
  else {
    process.setSourceMapsEnabled(true);
    await import(pathToFileURL(file).href);
  }
}

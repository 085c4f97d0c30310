import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';

// ---- layers: imports point down (ARCHITECTURE.md, rule 9) ------------------------------------------------------
// protocol <- engine <- store <- {chain, realtime, catalogue} <- {api, admin} <- server; the SDK, the CLI, the web
// page (and the demo clients and examples built like them) use protocol and the SDK only. A folder may import its
// own layer and those below; an import of a higher layer fails `npm run lint` (no-restricted-imports, built in).
// Where today's modules sit that the target names no place for:
// - config.ts, events.ts, log.ts (typed config, in-process bus, logger): above store, below the services;
// - verify/ (signature checks on worker threads) beside chain, realtime and catalogue;
// - the wiring files at the top of src/ (server, app, main, ...) and the clients (cli/, demo/) at the top.
const LAYERS = [
  ['protocol'],
  ['engine'],
  ['store'],
  ['config', 'events', 'log'],
  ['chain', 'realtime', 'catalogue', 'verify', 'render'],
  ['sequencer'],
  ['api', 'admin'],
  ['server', 'app', 'main', 'migrate', 'storage-backends', 'realtime-node', 'redis-shared', 'startup-banner', 'collect-garbage', 'cli', 'demo'],
];
/** Top-level modules of src/ (the others are folders). */
const SRC_FILES = new Set(['config', 'events', 'log', 'server', 'app', 'main', 'migrate', 'storage-backends', 'realtime-node', 'redis-shared', 'startup-banner', 'collect-garbage']);
const CLIENTS = ['cli', 'demo'];

/**
 * Temporary exceptions: [file, the module or folder it may still import although higher, why]. Each is an import
 * that points up today in a file another change is reshaping; remove the line when that change lands.
 */
const LAYER_EXCEPTIONS = [
];

/**
 * The store's SQLite implementation is reached through store/ports.ts; only these files import store/sqlite/
 * directly: [file, why].
 */
const SQLITE_USERS = [
  ['src/server.ts', 'builds the store'],
  ['src/storage-backends.ts', 'opens the store the configuration names'],
  ['src/migrate.ts', 'brings a data dir up to date'],
  ['src/main.ts', 'tells a data dir in use apart'],
  ['src/chain/evm/dev-chain.ts', 'tells a data dir whose journal followed a chain apart'],
  ['src/catalogue/store.ts', 'the SQLite implementation of the CatalogueRecords port (store/catalogue-records.ts)'],
  ['src/admin/api-keys.ts', 'the SQLite implementation of the ApiKeyRecords port (store/api-key-records.ts)'],
  ['src/realtime/tokens.ts', 'the SQLite implementation of the Settings port (store/settings.ts)'],
  ['src/api/health.ts', 'probes the Db handle it is given'],
];

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** An import specifier written from `depth` folders below src/ that reaches one of `names` (a folder or a top-level file). */
const reaching = (names, depth) =>
  `^${depth === 0 ? '\\./' : `(\\.\\./){${depth}}`}(${names.map(escape).join('|')})(/|\\.js$)`;

function layerBlocks() {
  const blocks = [];
  LAYERS.forEach((layer, level) => {
    const above = LAYERS.slice(level + 1).flat();
    if (above.length === 0) return;
    for (const name of layer) {
      if (CLIENTS.includes(name)) continue;
      const globs = SRC_FILES.has(name) ? [[`src/${name}.ts`, 0]] : [1, 2, 3].map((d) => [`src/${name}/${'*/'.repeat(d - 1)}*.ts`, d]);
      for (const [glob, depth] of globs) {
        // store/sqlite/ itself (depth 2 below store) uses its own modules.
        const sqliteForbidden = !(name === 'store' && depth > 1);
        // store/postgres/ is an implementation behind the same ports, reached the same way (server.ts will build it).
        const sqlite = name === 'store' ? '^\\./(sqlite|postgres)/' : reaching(['store/sqlite', 'store/postgres'], depth);
        const rule = (forbidden, sqliteAllowed = false) => ({
          'no-restricted-imports': [
            'error',
            {
              paths: [{ name: '@oddex/sdk', message: 'the exchange does not use its own client (only cli/, demo/, web/ and examples/ do)' }],
              patterns: [
                ...(forbidden.length
                  ? [{ regex: reaching(forbidden, depth), caseSensitive: true, message: `points up the layers: ${name} may import only ${LAYERS.slice(0, level + 1).flat().join(', ')} (eslint.config.js)` }]
                  : []),
                ...(sqliteForbidden && !sqliteAllowed
                  ? [{ regex: sqlite, caseSensitive: true, message: 'the store is reached through store/ports.ts; only SQLITE_USERS in eslint.config.js import its implementations (store/sqlite/, store/postgres/)' }]
                  : []),
              ],
            },
          ],
        });
        blocks.push({ files: [glob], ignores: ['**/*.test.ts'], rules: rule(above) });
        for (const [file, reason] of SQLITE_USERS) {
          if (!reason) throw new Error(`${file} needs its reason to import store/sqlite/`);
          const [, folder, ...rest] = file.split('/');
          const inThis = SRC_FILES.has(name) ? file === `src/${name}.ts` : folder === name && rest.length === depth;
          if (inThis) blocks.push({ files: [file], rules: rule(above, true) });
        }
        for (const [file, allowed, reason] of LAYER_EXCEPTIONS) {
          if (!reason) throw new Error(`layer exception ${file} -> ${allowed} needs its reason`);
          const [, folder, ...rest] = file.split('/');
          const inThis = SRC_FILES.has(name) ? file === `src/${name}.ts` : folder === name && rest.length === depth;
          if (inThis) blocks.push({ files: [file], rules: rule(above.filter((n) => n !== allowed)) });
        }
      }
    }
  });
  return blocks;
}

/** Clients: the SDK (packages/sdk), the CLI, the demo clients, the web page and examples reach src/ only for protocol (and examples the demo bot). */
const clientBlocks = [
  ...[1, 2].map((d) => ({
    files: [`src/cli/${'*/'.repeat(d - 1)}*.ts`, `src/demo/${'*/'.repeat(d - 1)}*.ts`],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ regex: `^(\\.\\./){${d}}(?!\\.\\./)(?!protocol/)`, message: 'a client of the exchange imports only protocol and the SDK' }] }] },
  })),
  {
    files: ['packages/sdk/src/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ regex: '^\\.\\./\\.\\./(?!\\.\\./src/protocol/)', message: 'the SDK imports only its own modules and src/protocol' }] }] },
  },
  {
    files: ['web/**/*.{ts,tsx}'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ regex: '^(\\.\\./)+src/(?!protocol/)', message: 'the web page imports only protocol and the SDK' }] }] },
  },
  {
    files: ['examples/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ regex: '^(\\.\\./)+src/(?!protocol/|demo/)', message: 'examples use the SDK (and the demo bot built on it)' }] }] },
  },
];

export default tseslint.config(
  { ignores: ['node_modules', 'data', 'dist', 'coverage', 'packages/*/dist'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  { files: ['web/**/*.{ts,tsx}'], ...reactHooks.configs.flat.recommended },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-constant-condition': ['error', { checkLoops: false }],
    },
  },
  ...layerBlocks(),
  ...clientBlocks,
);

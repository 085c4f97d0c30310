// `oddex migrate` and `npm run migrate`: brings the store's schema up to date without starting the exchange (the
// exchange also migrates at every start). The store is the one the exchange would open: ODDEX_DATABASE_URL's
// PostgreSQL database, else the SQLite files of ODDEX_DATA_DIR. Exit codes: 0 done, 1 failed, 2 bad configuration.
import { ConfigError, loadConfig } from './config.js';
import { createLoggers } from './log.js';
import { migrateStore } from './storage-backends.js';

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  let config;
  try {
    config = loadConfig(process.env, args[0] === 'migrate' ? args.slice(1) : args);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    console.error(`oddex migrate: ${err.message}`);
    process.exit(2);
  }
  const { log } = createLoggers(config.logLevel, 'json');
  console.log(await migrateStore(config, log));
}

main().catch((err: unknown) => {
  console.error('oddex migrate: failed:', err instanceof Error ? err.message : err);
  process.exit(1);
});

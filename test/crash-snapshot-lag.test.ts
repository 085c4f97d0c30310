// kill -9 while the read models lag behind every kept snapshot, after the journal's head was archived: the journal
// still holds every row after the archive (with its change records), so the restart must bring the read models up
// from it and start from a snapshot, not refuse to start ("no valid snapshot ... archived").
import { describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { crashSuite, type ChildExchange } from './helpers/process.js';
import { USDC, newWallet } from './helpers/wallets.js';

const ADMIN = 'snapshot-lag-admin';

describe('SIGKILL with every kept snapshot ahead of the read models, the journal head archived', () => {
  const suite = crashSuite('snapshot-lag', ADMIN, 20);
  const { call, dataDir } = suite;
  let running: ChildExchange | undefined;
  const faucet = async (address: string) => {
    const r = await call('POST', '/admin/faucet', { address, amount: (10n * USDC).toString() }, true);
    expect(r.status).toBe(200);
  };

  it('restarts with every acknowledged write, from the journal the archive left', async () => {
    running = await suite.spawn();
    const early = [newWallet(), newWallet()];
    for (const w of early) {
      await faucet(w.address);
      expect((await call('POST', '/admin/journal/snapshot', {}, true)).status).toBe(200);
    }
    const archived = await call('POST', '/admin/journal/archive', {}, true);
    expect([archived.status, archived.body.data?.from]).toEqual([200, 1]);
    running.child.kill('SIGKILL');
    await running.exited;

    // The projector lags (it waits a minute before each batch) while a snapshot is taken after every command.
    running = await suite.spawn({ ODDEX_TEST_PROJECTOR_DELAY_MS: '60000', ODDEX_SNAPSHOT_EVERY_COMMANDS: '1' });
    const late = [newWallet(), newWallet(), newWallet()];
    for (const w of late) await faucet(w.address);
    running.child.kill('SIGKILL');
    await running.exited;
    const db = new Database(join(dataDir, 'oddex.sqlite'), { readonly: true });
    const snapshots = (db.prepare('SELECT journal_seq AS s FROM snapshots').all() as { s: number }[]).map((r) => r.s);
    db.close();
    const rm = new Database(join(dataDir, 'oddex.read-models.sqlite'), { readonly: true });
    const projected = (rm.prepare('SELECT journal_seq AS seq FROM rm_position').get() as { seq: number }).seq;
    rm.close();
    expect(Math.min(...snapshots)).toBeGreaterThan(projected);

    running = await suite.spawn();
    for (const w of [...early, ...late]) {
      expect((await call('GET', `/balances/${w.address}`)).body.data).toMatchObject({ balance: '10000000', escrowed: '0' });
    }
    running.child.kill('SIGTERM');
    expect(await running.exited).toBe(0);
  }, 120_000);
});

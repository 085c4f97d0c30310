// The time rule of engine snapshots (ODDEX_SNAPSHOT_EVERY_MS) across kill -9 restarts: a snapshot is due once the
// oldest command no snapshot covers is that old, whichever process journaled it. The clock used to start again at
// every start, so an exchange killed more often than the period never took one by time: each start replayed a
// longer journal tail than the one before (up to ODDEX_SNAPSHOT_EVERY_COMMANDS, 50,000 by default). The same holds for a
// hot standby that takes over from a leader killed before the period was up.
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { crashSuite, spawnExchange, spawnWatched, type WatchedExchange } from './helpers/process.js';
import { natsForSuite } from './helpers/nats.js';
import { noPostgres, postgresForSuite, postgresSuite } from './helpers/postgres.js';
import { call } from './helpers/positioned-call.js';
import { USDC, newWallet } from './helpers/wallets.js';

const ADMIN = 'snapshot-clock-test-admin';
const EVERY_MS = 5000;

describe('snapshots by time across crashes', () => {
  const suite = crashSuite('snapshot-clock', ADMIN, 50);
  const admin = { authorization: `Bearer ${ADMIN}` };
  const faucet = async (url: string) => {
    const r = await call(url, 'POST', '/admin/faucet', { address: newWallet().address, amount: (1n * USDC).toString() }, admin);
    expect(r.status).toBe(200);
    return r.position;
  };
  const newestSnapshot = () => {
    const db = new Database(join(suite.dataDir, 'oddex.sqlite'), { readonly: true });
    try {
      return (db.prepare('SELECT max(journal_seq) AS seq FROM snapshots').get() as { seq: number | null }).seq ?? 0;
    } finally {
      db.close();
    }
  };

  it('takes the snapshot a killed process owed at the first commit after the restart', async () => {
    const settings = { ODDEX_SNAPSHOT_EVERY_MS: String(EVERY_MS) };
    // A life shorter than the period: a command journaled, then kill -9.
    let child = await suite.spawn(settings);
    const first = await faucet(child.url);
    child.child.kill('SIGKILL');
    await child.exited;
    expect(newestSnapshot()).toBe(0);

    // The command is older than the period when the next life journals its first one, a moment after its start.
    await sleep(EVERY_MS + 500);
    child = await suite.spawn(settings);
    const second = await faucet(child.url);
    child.child.kill('SIGKILL');
    await child.exited;
    expect(second).toBeGreaterThan(first);
    expect(newestSnapshot()).toBe(second);

    // The restart from it replays nothing, and holds both commands.
    child = await suite.spawn(settings);
    expect((await call(child.url, 'GET', '/health/ready')).status).toBe(200);
    const metrics = await (await fetch(child.url + '/metrics')).text();
    expect(Number(/^oddex_journal_position (\d+)$/m.exec(metrics)?.[1])).toBe(second);
  }, 90_000);
});

describe.skipIf(noPostgres)(postgresSuite('snapshots by time across a takeover'), () => {
  const postgres = postgresForSuite();
  const nats = natsForSuite();
  const dirs: string[] = [];
  const children: { child: { kill(signal: NodeJS.Signals): boolean } }[] = [];
  afterAll(() => {
    for (const c of children) c.child.kill('SIGKILL');
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('the standby that took over takes the snapshot the killed leader owed, at its first commit', async () => {
    const url = await postgres().createDatabase();
    const env = () => {
      const dir = mkdtempSync(join(tmpdir(), 'oddex-snapshot-clock-'));
      dirs.push(dir);
      return {
        ODDEX_DATABASE_URL: url,
        ODDEX_NATS_URL: nats().url,
        ODDEX_ADMIN_TOKEN: ADMIN,
        ODDEX_DATA_DIR: dir,
        ODDEX_ROLES: 'sequencer,projector,settlement,realtime',
        ODDEX_SNAPSHOT_EVERY_MS: String(EVERY_MS),
        ODDEX_VERIFY_THREADS: '0',
      };
    };
    const admin = { authorization: `Bearer ${ADMIN}` };
    const leader = await spawnExchange(env());
    children.push(leader);
    const standby: WatchedExchange = spawnWatched({ ...env(), ODDEX_STANDBY: 'true' });
    children.push(standby);
    await standby.line(/standing by: following the journal/);
    const written = await call(leader.url, 'POST', '/admin/faucet', { address: newWallet().address, amount: USDC.toString() }, admin);
    expect(written.status).toBe(200);

    // The leader dies before the period is up; the standby takes over once the command is older than the period.
    await sleep(EVERY_MS + 500);
    leader.child.kill('SIGKILL');
    await standby.line(/took over as the writer/);
    const newLeader = /listening on (http:\/\/[\d.]+:\d+)/.exec(await standby.line(/listening on http/))![1]!;
    const next = await call(newLeader, 'POST', '/admin/faucet', { address: newWallet().address, amount: USDC.toString() }, admin);
    expect(next.status).toBe(200);
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    try {
      const { rows } = await db.query<{ seq: number | null }>('SELECT max(journal_seq)::int AS seq FROM snapshots');
      expect(rows[0]!.seq).toBe(next.position);
    } finally {
      await db.end();
    }
  }, 90_000);
});

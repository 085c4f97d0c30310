// Engine snapshots against the real server: restarts load the newest valid snapshot and replay the journal's tail,
// a damaged snapshot falls back to the one before it (or to the whole journal), archived journal rows are not
// needed while a snapshot covers them, and without any usable snapshot an archived journal refuses to start.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { spawn } from 'node:child_process';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { startTestExchange, type TestExchange } from './helpers/server.js';
import { E18, USDC, newWallet } from './helpers/wallets.js';
import { betTestConfig, createFixtureMarket, createSoccerLeague, fillAndConfirm, fund, postOrder } from './helpers/bets.js';

describe('engine snapshots', () => {
  let ex: TestExchange;
  const maker = newWallet();
  const taker = newWallet();
  let market: string;
  const hashes: string[] = [];

  beforeAll(async () => {
    ex = await startTestExchange({ ...betTestConfig(), snapshotEveryCommands: 4 });
    const cat = await createSoccerLeague(ex);
    market = (await createFixtureMarket(ex, cat, { type: 52 })).markets[0]!.marketHash;
    await fund(ex, maker, 500n * USDC);
    await fund(ex, taker, 500n * USDC);
    for (let i = 0; i < 3; i++) {
      hashes.push(await postOrder(ex, maker, { marketHash: market, totalBetSize: 50n * USDC, percentageOdds: BigInt(40 + i) * E18, isMakerBettingOutcomeOne: true }));
    }
    await fillAndConfirm(ex, taker, { market, isTakerBettingOutcomeOne: false, stakeWei: 30n * USDC, desiredOdds: 60n * E18 });
    await postOrder(ex, maker, { marketHash: market, totalBetSize: 50n * USDC, percentageOdds: 30n * E18, isMakerBettingOutcomeOne: false });
  });
  afterAll(async () => ex.destroy());

  /** Everything a client sees of the trading state. */
  const view = async () => ({
    maker: (await ex.get(`/balances/${maker.address}`)).body.data,
    taker: (await ex.get(`/balances/${taker.address}`)).body.data,
    orders: (await ex.get(`/orders?maker=${maker.address}`)).body.data,
    trades: (await ex.get(`/trades?bettor=${taker.address}`)).body.data,
    best: (await ex.get(`/orders/odds/best?marketHashes=${market}&baseToken=${ex.ctx.config.baseTokenAddress}`)).body.data.bestOdds.map(
      (b: { outcomeOne: { percentageOdds: unknown }; outcomeTwo: { percentageOdds: unknown } }) => [b.outcomeOne.percentageOdds, b.outcomeTwo.percentageOdds],
    ),
  });
  const withDb = <T>(fn: (db: Database.Database) => T): T => {
    const db = new Database(join(ex.dataDir, 'oddex.sqlite'));
    try {
      return fn(db);
    } finally {
      db.close();
    }
  };
  const snapshotSeqs = () => withDb((db) => (db.prepare('SELECT journal_seq AS s FROM snapshots ORDER BY journal_seq').all() as { s: number }[]).map((r) => r.s));
  const journalRows = () => withDb((db) => (db.prepare('SELECT COUNT(*) AS n FROM journal').get() as { n: number }).n);

  it('restarts from the newest snapshot and the journal tail into the same state', async () => {
    const before = await view();
    expect(before.orders).toHaveLength(4);
    expect(snapshotSeqs().length).toBeGreaterThan(0);
    ex = await ex.restart();
    expect(await view()).toEqual(before);
  });

  it('falls back to the older snapshot when the newest is damaged, then to the whole journal', async () => {
    const before = await view();
    await ex.close();
    const seqs = snapshotSeqs();
    expect(seqs).toHaveLength(2);
    withDb((db) => db.prepare("UPDATE snapshots SET body = body || ' ' WHERE journal_seq = ?").run(seqs[1]));
    ex = await ex.restart();
    expect(await view()).toEqual(before);
    await ex.close();
    withDb((db) => db.prepare('UPDATE snapshots SET sha256 = ?').run('0'.repeat(64)));
    ex = await ex.restart();
    expect(await view()).toEqual(before);
  });

  it('archives journal rows the oldest snapshot covers and still restarts exactly; refuses to start with neither', async () => {
    // Two snapshots at different positions: the oldest one bounds what may be archived.
    await ex.admin('POST', '/admin/journal/snapshot');
    await postOrder(ex, maker, { marketHash: market, totalBetSize: 20n * USDC, percentageOdds: 25n * E18, isMakerBettingOutcomeOne: false });
    const second = await ex.admin('POST', '/admin/journal/snapshot');
    expect(second.status).toBe(200);
    const [oldest] = snapshotSeqs();
    const rowsBefore = journalRows();
    const archived = await ex.admin('POST', '/admin/journal/archive');
    expect(archived.status).toBe(200);
    expect(archived.body.data).toMatchObject({ from: 1, to: oldest, rows: oldest });
    expect(existsSync(archived.body.data.file)).toBe(true);
    expect(journalRows()).toBe(rowsBefore - oldest!);
    expect((await ex.admin('POST', '/admin/journal/archive')).body.errorCode).toBe('NOTHING_TO_ARCHIVE');

    const before = await view();
    ex = await ex.restart();
    expect(await view()).toEqual(before);

    // With every snapshot damaged and the journal's head archived, no state can be rebuilt: start-up refuses.
    await ex.close();
    withDb((db) => db.prepare('UPDATE snapshots SET sha256 = ?').run('0'.repeat(64)));
    await expect(startTestExchange({ ...betTestConfig(), snapshotEveryCommands: 4 }, { dataDir: ex.dataDir })).rejects.toThrow(/archived/);
  });
});

describe('a backup taken as the README says, after the journal was archived', () => {
  it("starts from the journal's online backup, admin-token and journal-archive/: the read models are projected again from the archive's files and the journal", async () => {
    const ex = await startTestExchange(betTestConfig());
    const backup = mkdtempSync(join(tmpdir(), 'oddex-backup-'));
    let restored: TestExchange | undefined;
    try {
      const maker = newWallet();
      const cat = await createSoccerLeague(ex);
      const market = (await createFixtureMarket(ex, cat, { type: 52 })).markets[0]!.marketHash;
      await fund(ex, maker, 500n * USDC);
      await postOrder(ex, maker, { marketHash: market, totalBetSize: 20n * USDC, percentageOdds: 30n * E18, isMakerBettingOutcomeOne: true });
      expect((await ex.admin('POST', '/admin/journal/snapshot')).status).toBe(200);
      const archived = await ex.admin('POST', '/admin/journal/archive');
      expect(archived.status).toBe(200);
      // Rows after the archive stay in the journal.
      await postOrder(ex, maker, { marketHash: market, totalBetSize: 20n * USDC, percentageOdds: 31n * E18, isMakerBettingOutcomeOne: true });
      const orders = (await ex.get(`/orders?maker=${maker.address}`)).body.data;
      const balance = (await ex.get(`/balances/${maker.address}`)).body.data;
      expect(orders).toHaveLength(2);

      // The README: the sqlite3 shell's online backup of the running exchange's journal, then admin-token and
      // journal-archive/ copied beside it (better-sqlite3's backup is SQLite's same online backup API).
      const db = new Database(join(ex.dataDir, 'oddex.sqlite'), { readonly: true });
      try {
        await db.backup(join(backup, 'oddex.sqlite'));
      } finally {
        db.close();
      }
      // (The test exchange takes its admin token from its configuration: there is no admin-token file to copy.)
      cpSync(join(ex.dataDir, 'journal-archive'), join(backup, 'journal-archive'), { recursive: true });

      restored = await startTestExchange(betTestConfig(), { dataDir: backup });
      expect((await restored.get(`/orders?maker=${maker.address}`)).body.data).toEqual(orders);
      expect((await restored.get(`/balances/${maker.address}`)).body.data).toEqual(balance);
    } finally {
      await restored?.destroy();
      await ex.destroy();
      rmSync(backup, { recursive: true, force: true });
    }
  });
});

describe('a backup that lacks the archived journal rows', () => {
  it('refuses to start in one line, saying what to restore, without a stack trace', async () => {
    const ex = await startTestExchange(betTestConfig());
    const backup = mkdtempSync(join(tmpdir(), 'oddex-backup-'));
    try {
      await fund(ex, newWallet(), 5n * USDC);
      expect((await ex.admin('POST', '/admin/journal/snapshot')).status).toBe(200);
      expect((await ex.admin('POST', '/admin/journal/archive')).status).toBe(200);
      // The journal's online backup alone: neither the read models nor journal-archive/.
      const db = new Database(join(ex.dataDir, 'oddex.sqlite'), { readonly: true });
      try {
        await db.backup(join(backup, 'oddex.sqlite'));
      } finally {
        db.close();
      }
      const res = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
          cwd: join(import.meta.dirname, '..'),
          env: { ...process.env, ODDEX_DATA_DIR: backup, ODDEX_PORT: '0', ODDEX_DEMO: 'false', ODDEX_ADMIN_TOKEN: 'x' },
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        let stderr = '';
        child.stderr.on('data', (d) => (stderr += d));
        child.on('exit', (code) => resolve({ code, stderr }));
      });
      expect(res.code).toBe(1);
      expect(res.stderr.trim()).toMatch(/^oddex: failed to start: no valid snapshot, and journal rows through \d+ are archived: restore them to rebuild \(the files of .*journal-archive\); the read models cover 0$/);
    } finally {
      await ex.destroy();
      rmSync(backup, { recursive: true, force: true });
    }
  });
});

describe('the journal archived on a schedule (ODDEX_JOURNAL_ARCHIVE_EVERY_MS)', () => {
  it('moves the rows its oldest snapshot covers to a file by itself, and restarts into the same state', async () => {
    let ex = await startTestExchange({ ...betTestConfig(), snapshotEveryCommands: 3, journalArchiveEveryMs: 200 });
    try {
      const maker = newWallet();
      const cat = await createSoccerLeague(ex);
      const market = (await createFixtureMarket(ex, cat, { type: 52 })).markets[0]!.marketHash;
      await fund(ex, maker, 500n * USDC);
      for (let i = 0; i < 8; i++) {
        await postOrder(ex, maker, { marketHash: market, totalBetSize: 20n * USDC, percentageOdds: BigInt(30 + i) * E18, isMakerBettingOutcomeOne: true });
      }
      const firstRow = () => {
        const db = new Database(join(ex.dataDir, 'oddex.sqlite'), { readonly: true });
        try {
          return (db.prepare('SELECT min(seq) AS s FROM journal').get() as { s: number }).s;
        } finally {
          db.close();
        }
      };
      // Nobody asked: the head of the journal leaves the table for a file under the data dir.
      for (let i = 0; i < 100 && firstRow() === 1; i++) await new Promise((r) => setTimeout(r, 100));
      expect(firstRow()).toBeGreaterThan(1);
      expect(readdirSync(join(ex.dataDir, 'journal-archive')).some((f) => /^journal-1-\d+\.ndjson\.gz$/.test(f))).toBe(true);
      const orders = (await ex.get(`/orders?maker=${maker.address}`)).body.data;
      expect(orders).toHaveLength(8);
      ex = await ex.restart();
      expect((await ex.get(`/orders?maker=${maker.address}`)).body.data).toEqual(orders);
    } finally {
      await ex.destroy();
    }
  });
});

describe('the journal archived whole (its newest snapshot covers every row)', () => {
  it('keeps journal positions rising: later commands are projected and survive a restart', async () => {
    let ex = await startTestExchange(betTestConfig());
    try {
      const maker = newWallet();
      const cat = await createSoccerLeague(ex);
      const market = (await createFixtureMarket(ex, cat, { type: 52 })).markets[0]!.marketHash;
      await fund(ex, maker, 500n * USDC);
      const first = await postOrder(ex, maker, { marketHash: market, totalBetSize: 20n * USDC, percentageOdds: 30n * E18, isMakerBettingOutcomeOne: true });
      // An idle exchange: the snapshot covers the whole journal, so the archive empties the table.
      const snapshot = await ex.admin('POST', '/admin/journal/snapshot');
      const archived = await ex.admin('POST', '/admin/journal/archive');
      expect(archived.status).toBe(200);
      expect(archived.body.data.to).toBe(snapshot.body.data.journalSeq);

      const second = await postOrder(ex, maker, { marketHash: market, totalBetSize: 20n * USDC, percentageOdds: 31n * E18, isMakerBettingOutcomeOne: true });
      const faucet = await ex.admin('POST', '/admin/faucet', { address: maker.address, amount: '1' });
      expect(Number(faucet.headers.get('oddex-position'))).toBeGreaterThan(archived.body.data.to);
      const hashes = async () => ((await ex.get(`/orders?maker=${maker.address}`)).body.data as { orderHash: string }[]).map((o) => o.orderHash).sort();
      expect(await hashes()).toEqual([first, second].sort());
      ex = await ex.restart();
      expect(await hashes()).toEqual([first, second].sort());
    } finally {
      await ex.destroy();
    }
  });
});

describe('an archive run again after a crash interrupted one', () => {
  it('leaves one file per archived range: no partial file, and no older file holding the same rows', async () => {
    const ex = await startTestExchange(betTestConfig());
    try {
      const maker = newWallet();
      for (let i = 0; i < 3; i++) await fund(ex, maker, 100n * USDC);
      await ex.admin('POST', '/admin/journal/snapshot');
      await fund(ex, maker, 1n * USDC);
      await ex.admin('POST', '/admin/journal/snapshot');
      // What a kill -9 mid-archive leaves: a file being written, or one renamed into place whose rows the journal
      // still holds (the crash came before their delete committed), covering fewer rows than the next archive will.
      const dir = join(ex.dataDir, 'journal-archive');
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'journal-1-2.ndjson.gz.partial'), 'torn');
      writeFileSync(join(dir, 'journal-1-2.ndjson.gz'), gzipSync('{"seq":1}\n{"seq":2}\n'));
      const archived = await ex.admin('POST', '/admin/journal/archive');
      expect(archived.status).toBe(200);
      expect(archived.body.data).toMatchObject({ from: 1 });
      expect(archived.body.data.to).toBeGreaterThan(2);
      expect(readdirSync(dir)).toEqual([`journal-1-${archived.body.data.to}.ndjson.gz`]);
    } finally {
      await ex.destroy();
    }
  });
});

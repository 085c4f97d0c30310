// What the catalogue's history costs a restart: `fixtures` fixtures of ten markets each (1X2, four spreads, three
// totals), `settledShare` of the markets then settled (written straight to the markets table, as a report's commit
// writes it), and the catalogue opened again on the same database. Prints the heap the markets took when created,
// and the time and heap of the reopened catalogue with the markets it holds in memory.
// Usage: node --expose-gc --import tsx bench/catalogue.ts [fixtures = 5000] [settledShare = 0.9]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../src/store/sqlite/db.js';
import { Catalogue } from '../src/catalogue/catalogue.js';
import { SqliteCatalogueRecords } from '../src/catalogue/store.js';
import { EventBus } from '../src/events.js';
import { fmt } from './lib.js';

const [fixtures = 5000, settledShare = 0.9] = process.argv.slice(2).map(Number);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc --import tsx');
const heapMb = () => {
  gc();
  return process.memoryUsage().heapUsed / 2 ** 20;
};

const dir = mkdtempSync(join(tmpdir(), 'oddex-catalogue-'));
try {
  let db = openDatabase(dir);
  let catalogue: Catalogue | undefined = await Catalogue.open(new SqliteCatalogueRecords(db), new EventBus(), 'v2');
  const sport = await catalogue.createSport({ label: 'Soccer' });
  const league = await catalogue.createLeague({ sportId: sport.sportId, label: 'League' });
  const teams = [];
  for (let i = 0; i < 200; i++) teams.push(await catalogue.createTeam({ sportId: sport.sportId, name: `Team ${i}` }));
  const before = heapMb();
  let markets = 0;
  for (let f = 0; f < fixtures; f++) {
    const fixture = await catalogue.createFixture({
      leagueId: league.leagueId,
      teamOneId: teams[f % teams.length]!.teamId,
      teamTwoId: teams[(f + 1) % teams.length]!.teamId,
      gameTime: 1_800_000_000 + f * 60,
    });
    const add = async (type: number, line?: number) => (markets += (await catalogue!.createMarkets({ exchangeEventId: fixture.exchangeEventId, type, line })).length);
    await add(1);
    for (const line of [-1.5, -0.5, 0.5, 1.5]) await add(3, line);
    for (const line of [1.5, 2.5, 3.5]) await add(2, line);
  }
  console.log(`${fixtures} fixtures, ${markets} markets: +${(heapMb() - before).toFixed(0)} MB of heap while all are open`);
  const settleEvery = Math.round(1 / (1 - settledShare));
  db.prepare(`UPDATE markets SET status = 'SETTLED', outcome = 1, reported_date = ? WHERE rowid % ? <> 0`).run(new Date(0).toISOString(), settleEvery);
  catalogue = undefined;
  db.close();

  const empty = heapMb();
  const started = performance.now();
  db = openDatabase(dir);
  const reopened = await Catalogue.open(new SqliteCatalogueRecords(db), new EventBus(), 'v2');
  const took = performance.now() - started;
  const { open, settled } = reopened.marketsInMemory;
  console.log(
    `reopened with ${(settledShare * 100).toFixed(0)}% settled in ${fmt(took)}: +${(heapMb() - empty).toFixed(0)} MB of heap, ` +
      `${open} open markets in memory, ${settled} settled`,
  );
  db.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}

// What projecting a fill costs the read models' projector, in process and single-threaded, so the figures do not
// depend on the HTTP path or on what else this shared machine runs. The journal entries are those of
// test/helpers/fill-workload.ts: per group of `perGroup` fills, one group of their orders, one of the fills, one of
// their confirmations, each projected in a transaction of its own, as the projector's thread does when it keeps up.
// Prints per tenth of the run (growth with history shows) the projector's CPU per fill for the three groups and the
// pages they wrote, then the pages of one more group by table and index.
// Usage: npx tsx bench/projection.ts [fills = 20000] [fills per group = 32]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine } from '../src/engine/engine.js';
import { openReadModelsDatabase } from '../src/store/sqlite/db.js';
import { ReadModelProjector } from '../src/store/sqlite/projector.js';
import type { JournalEntry, ProjectedEntry } from '../src/store/ports.js';
import { defaultEngineParams } from '../test/helpers/engine-params.js';
import { FillWorkload } from '../test/helpers/fill-workload.js';
import { measureFillWrites } from './lib.js';

const [fills = 20_000, perGroup = 32] = process.argv.slice(2).map(Number);
const token = '0x00000000000000000000000000000000000000C1';
const dir = mkdtempSync(join(tmpdir(), 'oddex-projection-'));
try {
  const db = openReadModelsDatabase(dir);
  const projector = new ReadModelProjector(db);
  const workload = new FillWorkload(new Engine(defaultEngineParams(token)), token);
  let seq = 0;
  let at = 1_700_000_000_000;
  const positioned = (entries: JournalEntry[]): ProjectedEntry[] => entries.map((e) => ({ seq: ++seq, at: ++at, changes: e.changes }));
  projector.project([positioned(workload.funding())]);
  measureFillWrites(db, workload, fills, perGroup, 'projector', (entries) => projector.project([positioned(entries)]));
  db.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}

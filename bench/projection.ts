// What projecting a fill costs the read models' projector, in process and single-threaded, so the figures do not
// depend on the HTTP path or on what else this shared machine runs. The journal entries are those of
// test/helpers/fill-workload.ts: per group of `perGroup` fills, one group of their orders, one of the fills, one of
// their confirmations, each projected in a transaction of its own as the projector's thread does under load.
// Prints per tenth of the run (growth with history shows) the projector's CPU per fill for the three groups and the
// pages they wrote, then the pages of one more group by table and index.
// Usage: npx tsx bench/projection.ts [fills = 20000] [fills per group = 32]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine } from '../src/engine/engine.js';
import { openReadModelsDatabase } from '../src/store/sqlite/db.js';
import { ReadModelProjector } from '../src/store/sqlite/projector.js';
import { checkpointAll, totalPages, walPagesByTree } from '../src/store/sqlite/wal-pages.js';
import type { JournalEntry, ProjectedEntry } from '../src/store/ports.js';
import { defaultEngineParams } from '../test/helpers/engine-params.js';
import { FillWorkload } from '../test/helpers/fill-workload.js';

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
  db.pragma('wal_autocheckpoint = 0');
  const walFrames = () => {
    const n = (db.pragma('wal_checkpoint(PASSIVE)') as { log: number }[])[0]!.log;
    checkpointAll(db);
    return n;
  };
  walFrames();
  const cpuMs = (work: () => void) => {
    const t = process.cpuUsage();
    work();
    const d = process.cpuUsage(t);
    return (d.user + d.system) / 1000;
  };

  const tenth = Math.max(perGroup, Math.floor(fills / 10));
  const total = { cpu: 0, pages: 0 };
  let part = { cpu: 0, pages: 0, fills: 0 };
  console.log(`${fills} fills in groups of ${perGroup}; projector CPU and pages per fill, for its order, itself and its confirmation:`);
  for (let done = 0; done < fills; ) {
    const n = Math.min(perGroup, fills - done);
    let cpu = 0;
    // The engine applies the commands (not timed) before each projection, as the writer does before the projector.
    for (const group of [() => workload.orders(done, n), () => workload.fills(done, n), () => workload.confirmations(done, n)]) {
      const entries = positioned(group());
      cpu += cpuMs(() => projector.project([entries]));
    }
    const pages = walFrames();
    part = { cpu: part.cpu + cpu, pages: part.pages + pages, fills: part.fills + n };
    total.cpu += cpu;
    total.pages += pages;
    done += n;
    if (part.fills >= tenth || done === fills) {
      console.log(`  fills ${String(done).padStart(7)}: projector CPU ${(part.cpu / part.fills).toFixed(3)} ms, ${(part.pages / part.fills).toFixed(1)} pages written`);
      part = { cpu: 0, pages: 0, fills: 0 };
    }
  }
  console.log(`all ${fills}: projector CPU ${(total.cpu / fills).toFixed(3)} ms, ${(total.pages / fills).toFixed(1)} pages written per fill`);
  console.log(`pages written by one more group of ${perGroup}, by table and index:`);
  for (const [label, group] of [['orders', workload.orders], ['fills', workload.fills], ['confirmations', workload.confirmations]] as const) {
    const entries = positioned(group.call(workload, fills, perGroup));
    const cpu = cpuMs(() => projector.project([entries]));
    const byTree = walPagesByTree(db);
    const top = [...byTree].sort((a, b) => b[1] - a[1]).map(([tree, k]) => `${tree} ${k}`);
    console.log(`  ${label}: ${cpu.toFixed(1)} ms CPU, ${totalPages(byTree)} pages: ${top.join(', ')}`);
  }
  db.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}

// What a fill costs the trading store's commits on a file database that grows, in process and single-threaded, so
// the figures do not depend on the HTTP path or on what else this shared machine runs. Each group is `perGroup`
// fills (test/helpers/fill-workload.ts): one commit of their orders, one of the fills, one of their confirmations.
// Prints per tenth of the run, so growth with history shows: the writer thread's CPU per fill for the three commits,
// and the database pages they wrote to the WAL per fill (an exact count: the WAL is checkpointed between groups,
// outside the timing, so each group starts it afresh). Ends with the pages of one more group by table and index.
// Usage: npx tsx bench/fill-commit.ts [fills = 20000] [fills per group = 32]

import { checkpointAll, totalPages, walPagesByTree } from '../src/store/sqlite/wal-pages.js';
import { withFillWorkloadStore } from './lib.js';
import type { JournalEntry } from '../src/store/ports.js';

const [fills = 20_000, perGroup = 32] = process.argv.slice(2).map(Number);

await withFillWorkloadStore('fill-commit', ({ db, store, workload }) => {
  db.pragma('wal_autocheckpoint = 0');
  /** Frames the WAL holds, that is pages written since the last call; all are checkpointed, so the WAL starts afresh. */
  const walFrames = () => {
    const n = (db.pragma('wal_checkpoint(PASSIVE)') as { log: number }[])[0]!.log;
    checkpointAll(db);
    return n;
  };
  walFrames();

  const cpuMs = (commit: () => void) => {
    const t = process.cpuUsage();
    commit();
    const d = process.cpuUsage(t);
    return (d.user + d.system) / 1000;
  };
  const tenth = Math.max(perGroup, Math.floor(fills / 10));
  const total = { cpu: 0, pages: 0 };
  let part = { cpu: 0, pages: 0, fills: 0 };
  console.log(`${fills} fills in groups of ${perGroup}; per fill, for the commits of its order, itself and its confirmation:`);
  for (let done = 0; done < fills; ) {
    const n = Math.min(perGroup, fills - done);
    // Commands are applied (engine work, not timed) before each commit, as the runner does.
    let cpu = 0;
    for (const entries of [() => workload.orders(done, n), () => workload.fills(done, n), () => workload.confirmations(done, n)]) {
      const group: JournalEntry[] = entries();
      cpu += cpuMs(() => store.commit(group));
    }
    const pages = walFrames();
    part = { cpu: part.cpu + cpu, pages: part.pages + pages, fills: part.fills + n };
    total.cpu += cpu;
    total.pages += pages;
    done += n;
    if (part.fills >= tenth || done === fills) {
      console.log(`  fills ${String(done).padStart(7)}: writer CPU ${(part.cpu / part.fills).toFixed(3)} ms, ${(part.pages / part.fills).toFixed(1)} pages written`);
      part = { cpu: 0, pages: 0, fills: 0 };
    }
  }
  console.log(`all ${fills}: writer CPU ${(total.cpu / fills).toFixed(3)} ms, ${(total.pages / fills).toFixed(1)} pages written per fill`);
  console.log(`pages written by one more group of ${perGroup}, by table and index:`);
  for (const [label, entries] of [['orders', workload.orders], ['fills', workload.fills], ['confirmations', workload.confirmations]] as const) {
    store.commit(entries.call(workload, fills, perGroup));
    const byTree = walPagesByTree(db);
    const top = [...byTree].sort((a, b) => b[1] - a[1]).map(([tree, n]) => `${tree} ${n}`);
    console.log(`  ${label} commit: ${totalPages(byTree)} pages: ${top.join(', ')}`);
  }
});

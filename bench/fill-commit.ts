// What a fill costs the trading store's commits on a file database that grows, in process and single-threaded, so
// the figures do not depend on the HTTP path or on what else this shared machine runs. Each group is `perGroup`
// fills (test/helpers/fill-workload.ts): one commit of their orders, one of the fills, one of their confirmations.
// Prints per tenth of the run, so growth with history shows: the writer thread's CPU per fill for the three commits,
// and the database pages they wrote to the WAL per fill (an exact count: the WAL is checkpointed between groups,
// outside the timing, so each group starts it afresh). Ends with the pages of one more group by table and index.
// Usage: npx tsx bench/fill-commit.ts [fills = 20000] [fills per group = 32]

import { measureFillWrites, withFillWorkloadStore } from './lib.js';

const [fills = 20_000, perGroup = 32] = process.argv.slice(2).map(Number);

await withFillWorkloadStore('fill-commit', ({ db, store, workload }) => {
  measureFillWrites(db, workload, fills, perGroup, 'writer', (entries) => store.commit(entries));
});

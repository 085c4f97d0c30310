// How long group commits stall behind the WAL checkpoint thread, in process: a commit of `perGroup` new orders
// (test/helpers/fill-workload.ts) every millisecond for `seconds`, on a file database with the real Checkpointer and
// the off-thread WAL sync. A commit the database is too busy to take is written again a millisecond later, as the
// runner does, and its time counts from the first attempt. Prints commit time p50/p99/p99.9/max, how many took over
// 5 and 20 ms, the busy retries, and the WAL restarts the checkpoint thread ran.
// Usage: npx tsx bench/commit-stalls.ts [seconds = 15] [orders per commit = 4]
import { setTimeout as sleep } from 'node:timers/promises';

import { Checkpointer, type CheckpointRun } from '../src/store/sqlite/checkpointer.js';
import { walSyncOf } from '../src/store/sqlite/wal-sync.js';
import { fmt, withFillWorkloadStore } from './lib.js';
import { StoreBusyError } from '../src/store/ports.js';

const [seconds = 15, perGroup = 4] = process.argv.slice(2).map(Number);

await withFillWorkloadStore('commit-stalls', async ({ db, store, workload }) => {
  const runs: CheckpointRun[] = [];
  const checkpointer = new Checkpointer(db, { onRun: (r) => runs.push(r), onProblem: (err) => console.error(err) });
  const durability = walSyncOf(db);
  const times: number[] = [];
  let busyRetries = 0;
  const end = performance.now() + seconds * 1000;
  for (let next = 0; performance.now() < end; next += perGroup) {
    const group = workload.orders(next, perGroup);
    const started = performance.now();
    for (;;) {
      try {
        store.commit(group);
        break;
      } catch (err) {
        if (!(err instanceof StoreBusyError)) throw err;
        busyRetries++;
        await sleep(1);
      }
    }
    times.push(performance.now() - started);
    await durability.sync();
    await sleep(1);
  }
  await checkpointer.stop();
  durability.close();
  times.sort((a, b) => a - b);
  const at = (q: number) => fmt(times[Math.floor(q * (times.length - 1))]!);
  const over = (ms: number) => times.filter((t) => t > ms).length;
  console.log(
    `${times.length} commits of ${perGroup} orders in ${seconds} s: p50 ${at(0.5)}  p99 ${at(0.99)}  p99.9 ${at(0.999)}  max ${at(1)}; ` +
      `over 5 ms: ${over(5)}, over 20 ms: ${over(20)}; busy retries ${busyRetries}; WAL restarts ${runs.filter((r) => r.restart === 'done').length}`,
  );
});

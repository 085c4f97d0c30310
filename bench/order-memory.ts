// Live heap per open order in the engine, for orders posted as parsed JSON and for orders restored from a snapshot.
// Each figure is the heap after full collections with the engine alive, less the heap before, over the order count.
//   npx tsx bench/order-memory.ts [orders = 100000]
import { heapPerOrder } from '../test/helpers/memory-probe.js';

const count = Number(process.argv[2] ?? 100_000);
for (const how of ['posted', 'restored'] as const) {
  console.log(`${how.padEnd(8)} ${count} open orders: ${heapPerOrder(count, how).toFixed(0)} bytes of heap per order`);
}

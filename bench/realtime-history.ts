// What channel history leaves in memory once nobody reads it: `channels` order-book channels (a month of markets),
// each subscribed, sent `publications` order updates of about 0.9 KB and left, in a MemoryBroker with the server's
// policy (5 minutes of history, half a 1 MB subscriber queue per channel, streams kept a day after their last
// publication). Prints what the broker retains and the heap: right away, after a sweep once the history has
// expired, and after a sweep a day later; with each sweep's time on the writer thread.
// Usage: node --expose-gc --import tsx bench/realtime-history.ts [channels = 1000] [publications = 600]
import { MemoryBroker } from '../src/realtime/broker.js';
import { historySizeOf } from '../src/realtime/channels.js';
import { defaultConfig } from '../src/config.js';
import { fmt } from './lib.js';

const [channels = 1000, publications = 600] = process.argv.slice(2).map(Number);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc --import tsx');
const heapMb = () => {
  gc();
  return `${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(0)} MB heap`;
};

const { historyTtlMs, idleStreamTtlMs, maxBufferedBytes } = defaultConfig().realtime;
let now = 0;
const broker = new MemoryBroker(
  { size: historySizeOf, ttlMs: historyTtlMs, maxBytes: maxBufferedBytes / 2, maxPublicationBytes: maxBufferedBytes / 4, idleStreamTtlMs },
  () => now,
);
const update = [{ orderHash: '0x' + 'ab'.repeat(32), pad: 'x'.repeat(800) }];
const retained = () => {
  const r = broker.retained();
  return `${r.streams} streams, ${(r.bytes / 2 ** 20).toFixed(1)} MB of publications`;
};
const sweep = () => {
  const started = performance.now();
  broker.sweep();
  return fmt(performance.now() - started);
};

console.log(`start: ${heapMb()}`);
for (let c = 0; c < channels; c++) {
  const channel = `order_book:market_0x${c.toString(16).padStart(64, '0')}`;
  const subscriber = () => {};
  await broker.subscribe(channel, subscriber);
  for (let i = 0; i < publications; i++) await broker.publish(channel, update);
  await broker.unsubscribe(channel, subscriber);
}
console.log(`${channels} channels x ${publications} publications, subscribers gone: ${retained()}, ${heapMb()}`);
now += historyTtlMs;
const expiry = sweep();
console.log(`sweep once the history expired (${expiry}): ${retained()}, ${heapMb()}`);
now += idleStreamTtlMs;
const idle = sweep();
console.log(`sweep a day later (${idle}): ${retained()}, ${heapMb()}`);
await broker.close();

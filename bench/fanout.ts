// The realtime fan-out alone, on real loopback sockets: what it costs the writer thread and how long the writer's
// own work waits behind it. No HTTP, no engine: the broker publishes one small order-book update at a fixed rate to
// every subscriber (each a TCP socket read by a forked client process), and meanwhile the writer's two kinds of
// work are probed every millisecond: a task queued for the check phase (the runner's next group write) and a
// thread-pool completion (a commit's sync, whose callback answers the callers). Their wait is reported next to
// the same probes with no subscriber, in the same run.
// Usage: npx tsx bench/fanout.ts [subscriber counts = 0,1000,5000] [publications/s = 50] [seconds = 5]
import { fork, type ChildProcess } from 'node:child_process';
import { stat } from 'node:fs';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { MemoryBroker } from '../src/realtime/broker.js';
import { fmt, machineConditions, percentiles } from './lib.js';

const nowMs = () => performance.timeOrigin + performance.now(); // comparable across processes
const CHANNEL = 'order_book:market_0x' + 'ab'.repeat(32);
type FromClients = { connected: number } | { result: { latencies: number[]; received: number; cpuMs: number } };

// ---- client process: N sockets, each chunk scanned for the publish times it carries ----------------------------
function runClients(): void {
  const sockets: net.Socket[] = [];
  let latencies: number[] = [];
  let cpuSince = process.cpuUsage();
  const T = Buffer.from('"t":');
  const onData = (data: Buffer) => {
    const at = nowMs();
    for (let i = data.indexOf(T); i >= 0; i = data.indexOf(T, i + 1)) {
      const end = data.indexOf(0x2c, i); // ","
      if (end > 0) latencies.push(at - Number(data.toString('latin1', i + T.length, end)));
    }
  };
  process.on('message', async (m: { open: number; port: number } | { report: true }) => {
    if ('open' in m) {
      while (sockets.length < m.open) {
        const n = Math.min(200, m.open - sockets.length);
        await Promise.all(
          Array.from({ length: n }, () => new Promise<void>((resolve) => sockets.push(net.connect(m.port, '127.0.0.1', resolve).on('data', onData)))),
        );
      }
      latencies = [];
      cpuSince = process.cpuUsage();
      process.send!({ connected: sockets.length } satisfies FromClients);
    } else {
      const cpu = process.cpuUsage(cpuSince);
      const p = percentiles(latencies);
      process.send!({ result: { latencies: [p.p50, p.p95, p.p99], received: latencies.length, cpuMs: (cpu.user + cpu.system) / 1000 } } satisfies FromClients);
      latencies = [];
      cpuSince = process.cpuUsage();
    }
  });
}

// ---- writer process -------------------------------------------------------------------------------------------
async function main(): Promise<void> {
  const counts = (process.argv[2] ?? '0,1000,5000').split(',').map(Number);
  const rate = Number(process.argv[3] ?? 50);
  const seconds = Number(process.argv[4] ?? 5);
  const serverSockets: net.Socket[] = [];
  const server = net.createServer((s) => serverSockets.push(s.setNoDelay(true)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  let clients: ChildProcess | undefined;
  const ask = (m: unknown) =>
    new Promise<FromClients>((resolve) => {
      clients!.once('message', resolve);
      clients!.send(m as never);
    });
  let baseline: { check: number[]; io: number[] } | undefined;
  const before = machineConditions();
  console.log(`${rate} publications/s for ${seconds} s on one channel; writer work probed every ms; ${before.text}`);
  try {
    for (const count of counts) {
      if (count > 0) {
        clients ??= fork(fileURLToPath(import.meta.url), ['--clients'], { execArgv: ['--import', 'tsx'] });
        await ask({ open: count, port });
        while (serverSockets.length < count) await new Promise((r) => setTimeout(r, 10));
      }
      const broker = new MemoryBroker({ size: () => 5000, ttlMs: 300_000, maxPublicationBytes: 262_144 }, Date.now);
      for (const s of serverSockets) await broker.subscribe(CHANNEL, (d) => s.write(d.frame));
      const checkWaits: number[] = [];
      const ioWaits: number[] = [];
      const probe = setInterval(() => {
        const queued = performance.now();
        setImmediate(() => checkWaits.push(performance.now() - queued));
        stat('.', () => ioWaits.push(performance.now() - queued));
      }, 1);
      const cpuBefore = process.cpuUsage();
      const start = performance.now();
      const total = rate * seconds;
      for (let i = 0; i < total; i++) {
        const due = start + (i * 1000) / rate;
        while (performance.now() < due) await new Promise((r) => setTimeout(r, Math.max(0, due - performance.now() - 1)));
        const order = { orderHash: '0x' + i.toString(16).padStart(64, '0'), totalBetSize: '10000000', percentageOdds: '50000000000000000000' };
        broker.publishNow(CHANNEL, [{ t: nowMs(), ...order }]);
      }
      while (broker.fanoutsPending > 0) await new Promise((r) => setImmediate(r));
      const cpu = process.cpuUsage(cpuBefore);
      const elapsed = (performance.now() - start) / 1000;
      clearInterval(probe);
      await new Promise((r) => setTimeout(r, 300));
      const check = percentiles(checkWaits);
      const io = percentiles(ioWaits);
      baseline ??= { check: [check.p50, check.p99], io: [io.p50, io.p99] };
      const vs = (v: number, b: number) => `${fmt(v)} (${v - b >= 0 ? '+' : ''}${(v - b).toFixed(2)})`;
      const cpuUs = cpu.user + cpu.system;
      let line =
        `${String(count).padStart(5)} subscribers: writer ${(cpuUs / 1e6 / elapsed).toFixed(2)} cores` +
        (count > 0 ? `, ${(cpuUs / total / count).toFixed(2)} µs per subscriber write` : '') +
        `\n      check-phase work waits p50 ${vs(check.p50, baseline.check[0]!)} p99 ${vs(check.p99, baseline.check[1]!)} max ${fmt(check.max)}` +
        `\n      pool completion waits  p50 ${vs(io.p50, baseline.io[0]!)} p99 ${vs(io.p99, baseline.io[1]!)} max ${fmt(io.max)}`;
      if (count > 0) {
        const { result } = (await ask({ report: true })) as Extract<FromClients, { result: unknown }>;
        const [p50, p95, p99] = result.latencies as [number, number, number];
        line +=
          `\n      delivery p50 ${fmt(p50)} p95 ${fmt(p95)} p99 ${fmt(p99)}; ${result.received} of ${total * count} seen;` +
          ` client process ${(result.cpuMs / 1000 / (elapsed + 0.3)).toFixed(2)} cores`;
      }
      console.log(line);
      await broker.close();
    }
    console.log(`at the end: ${machineConditions(before.jiffies).text}`);
  } finally {
    clients?.kill();
    for (const s of serverSockets) s.destroy();
    server.close();
  }
}

if (process.argv[2] === '--clients') runClients();
else await main();

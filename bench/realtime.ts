// Realtime fan-out: 2,000 connections (1,000 on one order-book channel), 50 publications/s for 10 s.
// Prints delivery latency (bus emit -> client receipt) and server memory per connection.
// The clients run in a child process so the server's RSS delta counts the server side only.
// Also prints the CPU each process used while publishing, to show whether the two cores are saturated.
// Run: npx tsx bench/realtime.ts [connections] [subscribers] [ratePerSecond] [seconds]
// RT_BENCH_CLIENT_ARGS adds node flags to the client process (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof").
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebSocket } from 'ws';
import { loadConfig } from '../src/config.js';
import { startExchange } from '../src/server.js';
import { RealtimeTokens } from '../src/realtime/tokens.js';
import { fmt, percentiles } from './lib.js';

const isClientProcess = process.argv[2] === '--clients';
const numbers = (isClientProcess ? process.argv.slice(5) : process.argv.slice(2)).map(Number);
const [connections = 2000, subscribers = 1000, rate = 50, seconds = 10] = numbers;
const MARKET = '0x' + 'be'.repeat(32);
const CHANNEL = `order_book:market_${MARKET}`;
const nowMs = () => performance.timeOrigin + performance.now(); // comparable across processes
const PUSH = Buffer.from('{"push"');
const STAMP = Buffer.from('"t":');
const NEWLINE = 0x0a;
const COMMA = 0x2c;

interface FromClients {
  ready?: true;
  /** cpuMs: CPU time (user + system) the client process used between ready and report. */
  result?: { latencies: number[]; received: number; cpuMs: number };
}

const cpuMs = (since?: NodeJS.CpuUsage) => {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1000;
};

// ---- client process --------------------------------------------------------------------------
async function runClients(url: string, token: string): Promise<void> {
  const latencies: number[] = [];
  let received = 0;
  const open = (i: number) =>
    new Promise<void>((resolve, reject) => {
      const ws = new WebSocket(url, { perMessageDeflate: false, skipUTF8Validation: true });
      ws.on('error', reject);
      ws.on('open', () => {
        const cmds = [JSON.stringify({ id: 1, connect: { token } })];
        if (i < subscribers) cmds.push(JSON.stringify({ id: 2, subscribe: { channel: CHANNEL } }));
        ws.send(cmds.join('\n'));
      });
      ws.on('message', (data: Buffer) => {
        const at = nowMs();
        // Fast path for the measured message (one push per frame): read the stamp, the first field of the first
        // order, straight from the bytes, so the instrument takes as little of the shared cores as it can.
        if (data.subarray(0, PUSH.length).equals(PUSH) && !data.includes(NEWLINE)) {
          const from = data.indexOf(STAMP) + STAMP.length;
          latencies.push(at - Number(data.toString('latin1', from, data.indexOf(COMMA, from))));
          received++;
          return;
        }
        for (const line of data.toString().split('\n')) {
          if (line === '{}') ws.send('{}');
          else if (line.startsWith('{"push"')) {
            const from = line.indexOf('"t":') + 4;
            latencies.push(at - Number(line.slice(from, line.indexOf(',', from))));
            received++;
          } else if (line.includes(i < subscribers ? '"subscribe"' : '"connect"')) resolve();
          else if (line.includes('"error"')) reject(new Error(line));
        }
      });
    });
  // Open in batches so the handshakes do not all queue at once.
  for (let i = 0; i < connections; i += 200) {
    await Promise.all(Array.from({ length: Math.min(200, connections - i) }, (_, k) => open(i + k)));
  }
  const cpuAtReady = process.cpuUsage();
  process.send!({ ready: true } satisfies FromClients);
  process.on('message', (m) => {
    if (m === 'report') {
      const result = { latencies, received, cpuMs: cpuMs(cpuAtReady) };
      process.send!({ result } satisfies FromClients, () => process.exit(0));
    }
  });
}

// ---- server process --------------------------------------------------------------------------
async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'oddex-bench-rt-'));
  const ex = await startExchange(
    loadConfig({}, [], { port: 0, dataDir, demo: false, logLevel: 'silent', adminToken: 'bench', realtimeTokenTtlSeconds: 3600 }),
  );
  const key = ex.ctx.apiKeys.create('0x' + '11'.repeat(20), new Date().toISOString());
  const token = await RealtimeTokens.of(ex.ctx).issue(key.address, key.id);
  const url = ex.url.replace('http', 'ws') + '/connection/websocket';

  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  const child = fork(fileURLToPath(import.meta.url), ['--clients', url, token, ...process.argv.slice(2, 6)], {
    execArgv: ['--import', 'tsx', ...(process.env.RT_BENCH_CLIENT_ARGS ?? '').split(' ').filter(Boolean)],
  });
  const fromChild = (want: keyof FromClients) =>
    new Promise<FromClients>((resolve, reject) => {
      child.on('message', (m: FromClients) => m[want] && resolve(m));
      child.once('exit', (code) => reject(new Error(`client process exited ${code}`)));
    });
  const t0 = Date.now();
  await fromChild('ready');
  const connectSeconds = (Date.now() - t0) / 1000;
  const live = ex.ctx.realtime!.connectionCount;
  global.gc?.();
  const rssAfter = process.memoryUsage().rss;

  // Fixed-rate publishing: one order per publication, stamped with the emit time.
  const total = rate * seconds;
  const fanOut: number[] = [];
  const serverCpuAtStart = process.cpuUsage();
  const start = performance.now();
  for (let i = 0; i < total; i++) {
    const wait = start + (i * 1000) / rate - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const emitted = performance.now();
    ex.ctx.bus.emit('orders', {
      marketHash: MARKET,
      exchangeEventId: 'bench',
      orders: [{ t: nowMs(), orderHash: '0x' + i.toString(16).padStart(64, '0'), marketHash: MARKET, fillAmount: '0' }],
    });
    fanOut.push(performance.now() - emitted); // the in-process broker writes to every socket synchronously
  }
  await new Promise((r) => setTimeout(r, 500)); // let the last ones arrive
  const windowMs = performance.now() - start;
  const serverCpu = cpuMs(serverCpuAtStart);
  const report = fromChild('result');
  child.send('report');
  const { latencies, received, cpuMs: clientCpu } = (await report).result!;

  const p = percentiles(latencies);
  console.log(`connections: ${live} open (${subscribers} on ${CHANNEL.slice(0, 30)}...), opened in ${connectSeconds.toFixed(1)} s`);
  console.log(`published: ${total} at ${rate}/s; delivered ${received} of ${total * subscribers} expected`);
  console.log(`delivery latency (bus emit -> client receipt): p50 ${fmt(p.p50)}  p95 ${fmt(p.p95)}  p99 ${fmt(p.p99)}  max ${fmt(p.max)}`);
  const f = percentiles(fanOut);
  console.log(`server fan-out per publication (encode once + ${subscribers} socket writes): p50 ${fmt(f.p50)}  p99 ${fmt(f.p99)}`);
  const share = (ms: number) => `${((100 * ms) / windowMs).toFixed(0)}% of a core`;
  console.log(`CPU while publishing: server ${share(serverCpu)}, clients ${share(clientCpu)} (2 cores = 200%)`);
  console.log(
    `server memory: RSS ${(rssBefore / 2 ** 20).toFixed(1)} MiB -> ${(rssAfter / 2 ** 20).toFixed(1)} MiB, ` +
      `${((rssAfter - rssBefore) / live / 1024).toFixed(1)} KiB per connection`,
  );
  await ex.close();
  rmSync(dataDir, { recursive: true, force: true });
  if (received !== total * subscribers) process.exitCode = 1;
}

if (isClientProcess) {
  const [, , , url, token] = process.argv;
  runClients(url!, token!).catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
} else {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}

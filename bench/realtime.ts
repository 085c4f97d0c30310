// The poster's own reply and the realtime delivery with 0, 1,000 and 5,000 subscribers on one order book.
// Three processes: the exchange (child), the subscribers (a forked child holding every WebSocket), and this one,
// which posts signed orders over HTTP at a fixed rate and times each reply. Delivery latency is measured by the
// subscribers from the order's scheduled send time, which rides in its salt (the salt is any 256-bit number).
// Baseline: the poster's reply with no subscriber, in the same run. Targets (issue 15): reply p50/p99 within 1 ms
// of the baseline with 1,000 and 5,000 subscribers; delivery p95 under 10 ms at 1,000.
// With `nodes` as the fourth argument, the exchange publishes through a Redis (a throwaway redis-server) and the
// subscribers are split over two realtime node processes (ODDEX_ROLES=realtime); the exchange's CPU per posted order
// is printed beside the subscriber count, the figure that must not grow with subscribers (issue 29).
// Usage: npx tsx bench/realtime.ts [subscriber counts = 0,1000,5000] [orders/s = 50] [seconds = 5] [nodes]
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { fmt, machineConditions, openLoop, percentiles, processCpuSeconds } from './lib.js';
import { E18, USDC, newAccount, signedOrder, startBenchExchange } from './exchange.js';
import { spawnExchange } from '../test/helpers/process.js';
import { startRedis } from '../test/helpers/redis.js';

const nowMs = () => performance.timeOrigin + performance.now(); // comparable across processes
/** Salts carry the scheduled send time in microseconds, times 1000, plus a serial number. */
const SALT_SCALE = 1000n;

/** A client's text frame: masked, as clients must, with a zero mask (the payload goes as it is). */
function clientFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  const header = payload.length < 126 ? Buffer.from([0x81, 0x80 | payload.length]) : Buffer.from([0x81, 0x80 | 126, payload.length >> 8, payload.length & 0xff]);
  return Buffer.concat([header, Buffer.alloc(4), payload]);
}
const PONG = clientFrame('{}');

/** Subscribers are spread over `urls` in turn. */
type ToClients = { open: number; urls: string[]; token: string; channel: string } | { report: true };
type FromClients = { ready: number } | { result: { latencies: number[]; received: number; cpuMs: number } };

// ---- subscriber process -----------------------------------------------------------------------
function runSubscribers(): void {
  const sockets: net.Socket[] = [];
  let latencies: number[] = [];
  let received = 0;
  let cpuSince = process.cpuUsage();
  const SALT = Buffer.from('"salt":"');
  const PUSH = Buffer.from('{"push"');
  const send = (m: FromClients) => process.send!(m);

  const onPush = (data: Buffer, at: number) => {
    // Every order in the push carries its salt; read them straight from the bytes to stay cheap.
    for (let from = data.indexOf(SALT); from >= 0; from = data.indexOf(SALT, from + 1)) {
      const start = from + SALT.length;
      const salt = BigInt(data.toString('latin1', start, data.indexOf(0x22, start)));
      latencies.push(at - Number(salt / SALT_SCALE) / 1000);
      received++;
    }
  };
  /**
   * One subscriber on a bare TCP socket: the WebSocket handshake and frames done by hand, so that this process,
   * which reads for every subscriber on one core, spends as little as it can per publication (a library client
   * costs about 10 µs per message here, as much as the server's write) and measures the server, not itself.
   */
  const open = (url: string, token: string, channel: string) =>
    new Promise<void>((resolve, reject) => {
      const { hostname, port, pathname } = new URL(url);
      const socket = net.connect(Number(port), hostname);
      socket.setNoDelay(true);
      socket.on('error', reject);
      socket.on('connect', () => {
        socket.write(
          `GET ${pathname} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
            `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
        );
        socket.write(clientFrame(JSON.stringify({ id: 1, connect: { token } }) + '\n' + JSON.stringify({ id: 2, subscribe: { channel } })));
      });
      let upgraded = false;
      let rest: Buffer | undefined;
      const onText = (payload: Buffer, at: number) => {
        // A publication arrives alone in its frame: read its salts straight from the bytes.
        if (payload.subarray(0, PUSH.length).equals(PUSH) && payload.indexOf(0x0a) < 0) return onPush(payload, at);
        for (const line of payload.toString('latin1').split('\n')) {
          if (line === '{}') socket.write(PONG);
          else if (line.startsWith('{"push"')) onPush(Buffer.from(line, 'latin1'), at);
          else if (line.includes('"subscribe"')) resolve();
          else if (line.includes('"error"')) reject(new Error(line));
        }
      };
      socket.on('data', (chunk: Buffer) => {
        const at = nowMs();
        let data = rest ? Buffer.concat([rest, chunk]) : chunk;
        rest = undefined;
        if (!upgraded) {
          const end = data.indexOf('\r\n\r\n');
          if (end < 0) return void (rest = data);
          if (!data.subarray(0, 12).toString('latin1').includes(' 101')) return reject(new Error(data.toString('latin1', 0, end)));
          upgraded = true;
          data = data.subarray(end + 4);
        }
        // Server frames: unmasked, unfragmented (the server never fragments); text frames carry the protocol.
        let offset = 0;
        while (data.length - offset >= 2) {
          const short = data[offset + 1]! & 0x7f;
          const header = short < 126 ? 2 : short === 126 ? 4 : 10;
          if (data.length - offset < header) break;
          const length = short < 126 ? short : short === 126 ? data.readUInt16BE(offset + 2) : Number(data.readBigUInt64BE(offset + 2));
          if (data.length - offset < header + length) break;
          if ((data[offset]! & 0x0f) === 0x1) onText(data.subarray(offset + header, offset + header + length), at);
          offset += header + length;
        }
        if (offset < data.length) rest = data.subarray(offset);
      });
      sockets.push(socket);
    });

  process.on('message', async (m: ToClients) => {
    if ('open' in m) {
      // Open in groups so the handshakes do not all queue at once.
      while (sockets.length < m.open) {
        const n = Math.min(200, m.open - sockets.length);
        const first = sockets.length;
        await Promise.all(Array.from({ length: n }, (_, i) => open(m.urls[(first + i) % m.urls.length]!, m.token, m.channel)));
      }
      latencies = [];
      received = 0;
      cpuSince = process.cpuUsage();
      send({ ready: sockets.length });
    } else {
      const cpu = process.cpuUsage(cpuSince);
      const p = percentiles(latencies);
      send({ result: { latencies: [p.p50, p.p95, p.p99, p.max], received, cpuMs: (cpu.user + cpu.system) / 1000 } });
      latencies = [];
      received = 0;
      cpuSince = process.cpuUsage();
    }
  });
}

// ---- poster and orchestration -----------------------------------------------------------------
async function main(): Promise<void> {
  const counts = (process.argv[2] ?? '0,1000,5000').split(',').map(Number);
  const rate = Number(process.argv[3] ?? 50);
  const seconds = Number(process.argv[4] ?? 5);
  const split = process.argv[5] === 'nodes';
  const redis = split ? await startRedis() : undefined;
  const secret = randomBytes(32).toString('hex');
  const shared: Record<string, string> = redis ? { ODDEX_REDIS_URL: redis.url, ODDEX_REALTIME_TOKEN_SECRET: secret } : {};
  const ex = await startBenchExchange(shared);
  const nodes = redis ? await Promise.all([0, 1].map(() => spawnExchange({ ...shared, ODDEX_ROLES: 'realtime', ODDEX_LOG_LEVEL: 'warn' }))) : [];
  let clients: ChildProcess | undefined;
  try {
    const maker = newAccount();
    await ex.fund(maker);
    const market = ex.markets[0]!;
    const channel = `order_book:market_${market}`;
    const apiKey = (await ex.post('/admin/api-keys', { address: maker.address }, true)).body.data!.apiKey as string;
    const token = (JSON.parse((await ex.request('GET', '/user/realtime-token/api-key', undefined, { 'x-api-key': apiKey })).body) as { token: string }).token;
    const urls = (nodes.length > 0 ? nodes : [ex]).map((n) => n.url.replace('http', 'ws') + '/connection/websocket');
    let serial = 0n;
    const post = (o: ReturnType<typeof signedOrder>) => ex.post('/orders/new', { orders: [o.body] });
    const ordersAt = (start: number, count: number) =>
      Array.from({ length: count }, (_, i) => {
        const scheduledUs = BigInt(Math.round((start + (i * 1000) / rate) * 1000));
        return signedOrder(maker, market, { odds: BigInt(10 + (i % 30)) * E18, size: 10n * USDC, outcomeOne: true, salt: scheduledUs * SALT_SCALE + ++serial });
      });
    // Warm-up: JIT, the connection pool and the verification workers.
    for (const o of ordersAt(nowMs(), 200)) await post(o);

    const ask = (m: ToClients) =>
      new Promise<FromClients>((resolve, reject) => {
        clients!.once('message', (r: FromClients) => resolve(r));
        clients!.once('exit', (code) => reject(new Error(`subscriber process exited ${code}`)));
        clients!.send(m);
      });
    let baseline: { p50: number; p99: number } | undefined;
    const before = machineConditions();
    const where = split ? 'split over two realtime nodes on Redis' : 'on the exchange process';
    console.log(`posting ${rate} orders/s for ${seconds} s on one market; subscribers on ${channel.slice(0, 32)}... ${where}; ${before.text}`);
    for (const subscribers of counts) {
      if (subscribers > 0) {
        clients ??= fork(fileURLToPath(import.meta.url), ['--subscribers'], { execArgv: ['--import', 'tsx'] });
        await ask({ open: subscribers, urls, token, channel });
      }
      const count = rate * seconds;
      // Signed ahead with their scheduled send times; the open loop starts right after.
      const start = nowMs() + 200;
      const orders = ordersAt(start, count);
      while (nowMs() < start) await new Promise((r) => setTimeout(r, 1));
      const cpuBefore = processCpuSeconds(ex.pid);
      const posterCpu = process.cpuUsage();
      const run = await openLoop(count, rate, async (i) => (await post(orders[i]!)).status === 200);
      await new Promise((r) => setTimeout(r, 300)); // the last deliveries
      const serverCores = (processCpuSeconds(ex.pid) - cpuBefore) / (run.seconds + 0.3);
      const poster = process.cpuUsage(posterCpu);
      const posterCores = (poster.user + poster.system) / 1e6 / (run.seconds + 0.3);
      const reply = percentiles(run.latencies);
      baseline ??= reply;
      const vs = (ms: number, base: number) => `${fmt(ms)} (${ms - base >= 0 ? '+' : ''}${(ms - base).toFixed(2)} ms)`;
      const cpuPerOrderMs = (serverCores * (run.seconds + 0.3) * 1000) / count;
      let line = `${String(subscribers).padStart(5)} subscribers: reply p50 ${vs(reply.p50, baseline.p50)}  p99 ${vs(reply.p99, baseline.p99)}  failures ${run.failures}; server ${serverCores.toFixed(2)} cores (${cpuPerOrderMs.toFixed(3)} ms per order), poster ${posterCores.toFixed(2)}`;
      if (subscribers > 0) {
        const { result } = (await ask({ report: true })) as Extract<FromClients, { result: unknown }>;
        const [p50, p95, p99] = result.latencies as [number, number, number, number];
        line +=
          `\n                   delivery p50 ${fmt(p50)}  p95 ${fmt(p95)}  p99 ${fmt(p99)}; ` +
          `${result.received} of ${count * subscribers} delivered; subscriber process ${(result.cpuMs / 1000 / (run.seconds + 0.3)).toFixed(2)} cores`;
      }
      console.log(line);
    }
    console.log('(reply: the poster\'s HTTP round trip from its scheduled send time; in brackets, the difference to the no-subscriber run)');
    console.log(`at the end: ${machineConditions(before.jiffies).text}`);
  } finally {
    clients?.kill();
    for (const node of nodes) node.child.kill();
    await ex.close();
    await redis?.stop();
  }
}

if (process.argv[2] === '--subscribers') runSubscribers();
else await main();

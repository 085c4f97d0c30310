// The poster's own reply and the realtime delivery with 0, 1,000 and 5,000 subscribers on one order book.
// Processes: the exchange (child), the subscribers (one or more forked children holding the WebSockets), and this
// one, which posts signed orders over HTTP at a fixed rate and times each reply. Delivery latency is measured by the
// subscribers from the order's scheduled send time, which rides in its salt (the salt is any 256-bit number).
// Baseline: the poster's reply with no subscriber, in the same run. Targets (issue 15): reply p50/p99 within 1 ms
// of the baseline with 1,000 and 5,000 subscribers; delivery p95 under 10 ms at 1,000.
// Modes (fourth argument):
// - `memory` (default): every subscriber on the exchange process (its memory broker).
// - `nodes`: the exchange publishes through a Redis (a throwaway redis-server) and the subscribers are split over
//   two realtime node processes (ODDEX_ROLES=realtime); the exchange's CPU per posted order is printed beside the
//   subscriber count, the figure that must not grow with subscribers (issue 29).
// - `both`: `memory`, then `nodes`, in one run, and the two side by side at each subscriber count.
// Every figure of a machine this small depends on what else runs on it, so each line carries the CPU of every
// process of the bench (exchange, nodes, Redis, subscriber processes, poster) in cores, and the load average.
// Deliveries are awaited after the last order until all arrived or none arrived for 5 s: what "delivered" lacks then
// was lost (or stalled for 5 s), not merely still queued. In `nodes` mode two probes split the delay by stage: a
// Redis subscriber in this process (the publication left the exchange and Redis), and on each node one WebSocket
// subscribed after all the others, read by this process (the node finished writing the publication to every socket
// ahead of it); what the subscribers see beyond that is their own reading.
// Usage: npx tsx bench/realtime.ts [subscriber counts = 0,1000,5000] [orders/s, one or more = 50] [seconds = 5] [memory|nodes|both]
//        [subscriber processes = 1]
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { fmt, machineConditions, openLoop, percentiles, processCpuSeconds, ratio } from './lib.js';
import { E18, USDC, newAccount, signedOrder, startBenchExchange } from './exchange.js';
import { spawnExchange, type ChildExchange } from '../test/helpers/process.js';
import { startRedis } from '../test/helpers/redis.js';

const nowMs = () => performance.timeOrigin + performance.now(); // comparable across processes
/** Salts carry the scheduled send time in microseconds, times 1000, plus a serial number. */
const SALT_SCALE = 1000n;
const SALT = Buffer.from('"salt":"');

/** Delivery delays in buckets 1% wide (10 µs to 200 s), so that subscriber processes can merge theirs exactly enough. */
class Histogram {
  static readonly BASE = 0.01;
  static readonly STEP = Math.log(1.01);
  readonly counts = new Uint32Array(1700);
  total = 0;
  add(ms: number): void {
    const b = ms <= Histogram.BASE ? 0 : Math.min(this.counts.length - 1, Math.ceil(Math.log(ms / Histogram.BASE) / Histogram.STEP));
    this.counts[b]!++;
    this.total++;
  }
  clear(): void {
    this.counts.fill(0);
    this.total = 0;
  }
  merge(pairs: readonly (readonly [number, number])[]): this {
    for (const [b, n] of pairs) {
      this.counts[b]! += n;
      this.total += n;
    }
    return this;
  }
  /** Non-empty buckets, for sending to another process. */
  pairs(): [number, number][] {
    const out: [number, number][] = [];
    this.counts.forEach((n, b) => n > 0 && out.push([b, n]));
    return out;
  }
  at(q: number): number {
    if (this.total === 0) return NaN;
    const rank = Math.min(this.total - 1, Math.floor(q * this.total));
    let seen = 0;
    for (let b = 0; b < this.counts.length; b++) {
      seen += this.counts[b]!;
      if (seen > rank) return Histogram.BASE * Math.exp(b * Histogram.STEP);
    }
    return NaN;
  }
  get text(): string {
    return `p50 ${fmt(this.at(0.5))}  p95 ${fmt(this.at(0.95))}  p99 ${fmt(this.at(0.99))}`;
  }
}

/** A client's text frame: masked, as clients must, with a zero mask (the payload goes as it is). */
function clientFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  const header = payload.length < 126 ? Buffer.from([0x81, 0x80 | payload.length]) : Buffer.from([0x81, 0x80 | 126, payload.length >> 8, payload.length & 0xff]);
  return Buffer.concat([header, Buffer.alloc(4), payload]);
}
const PONG = clientFrame('{}');
const PUSH = Buffer.from('{"push"');

/** Calls `each` with the delay of every order in a publication: its salts are read straight from the bytes, to stay cheap. */
function saltDelays(data: Buffer, at: number, each: (ms: number) => void): void {
  for (let from = data.indexOf(SALT); from >= 0; from = data.indexOf(SALT, from + 1)) {
    const start = from + SALT.length;
    // The scheduled time in µs is the salt's digits but its last three (the serial): within a double's exact range.
    each(at - Number(data.toString('latin1', start, data.indexOf(0x22, start) - 3)) / 1000);
  }
}

const OFFSET = Buffer.from('"offset":');
/**
 * The same as saltDelays for a push, reading each publication's bytes once per process, not once per subscriber:
 * every subscriber gets the same publication, so its send times are kept by its offset (the push's last field, read
 * from the end of the bytes). Scanning a whole publication for its salts was the subscriber process's largest cost.
 */
function pushDelays(sendTimes: Map<number, number[]>, data: Buffer, at: number, each: (ms: number) => void): void {
  const o = data.lastIndexOf(OFFSET);
  let offset = 0;
  for (let i = o + OFFSET.length; o >= 0 && data[i]! >= 0x30 && data[i]! <= 0x39; i++) offset = offset * 10 + data[i]! - 0x30;
  if (o < 0) return saltDelays(data, at, each);
  let times = sendTimes.get(offset);
  if (!times) {
    const found: number[] = [];
    saltDelays(data, 0, (ms) => found.push(-ms));
    sendTimes.set(offset, (times = found));
  }
  for (const t of times) each(at - t);
}

/**
 * One subscriber on a bare TCP socket: the WebSocket handshake and frames done by hand, so that a process which
 * reads for thousands of subscribers spends as little as it can per publication (a library client costs about
 * 10 µs per message here, as much as the server's write) and measures the server, not itself. Resolves once
 * subscribed; `onPush` gets each push's bytes, `onClose` the close code (0: the socket closed without one).
 */
function openSubscriber(url: string, token: string, channel: string, onPush: (data: Buffer, at: number) => void, onClose: (code: number) => void): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
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
    let closeCode = 0;
    let rest: Buffer | undefined;
    socket.on('close', () => onClose(closeCode));
    const onText = (payload: Buffer, at: number) => {
      // A publication arrives alone in its frame: read its salts straight from the bytes.
      // (JSON escapes newlines: a frame that starts as a push is that one push, however long.)
      if (payload.subarray(0, PUSH.length).equals(PUSH)) return onPush(payload, at);
      for (const line of payload.toString('latin1').split('\n')) {
        if (line === '{}') socket.write(PONG);
        else if (line.startsWith('{"push"')) onPush(Buffer.from(line, 'latin1'), at);
        else if (line.includes('"subscribe"')) resolve(socket);
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
        const opcode = data[offset]! & 0x0f;
        if (opcode === 0x1) onText(data.subarray(offset + header, offset + header + length), at);
        else if (opcode === 0x8 && length >= 2) closeCode = data.readUInt16BE(offset + header);
        offset += header + length;
      }
      if (offset < data.length) rest = data.subarray(offset);
    });
  });
}

/** Subscribers are spread over `urls` in turn. */
type ToClients = { open: number; urls: string[]; token: string; channel: string } | { count: true } | { report: true };
interface NodeResult {
  received: number;
  histogram: [number, number][];
}
type FromClients =
  | { ready: number }
  | { count: number }
  | { result: { perUrl: NodeResult[]; cpuMs: number; closed: Record<number, number> } };

// ---- subscriber process -----------------------------------------------------------------------
function runSubscribers(): void {
  const sockets: net.Socket[] = [];
  let perUrl: { received: number; histogram: Histogram }[] = [];
  let received = 0;
  let closed: Record<number, number> = {};
  let cpuSince = process.cpuUsage();
  const sendTimes = new Map<number, number[]>();
  const send = (m: FromClients) => process.send!(m);
  process.once('SIGTERM', () => process.exit(0)); // an orderly exit writes a --cpu-prof profile
  const reset = (urls: number) => {
    perUrl = Array.from({ length: urls }, () => ({ received: 0, histogram: new Histogram() }));
    received = 0;
    closed = {};
    cpuSince = process.cpuUsage();
  };

  process.on('message', async (m: ToClients) => {
    if ('open' in m) {
      // Open in groups so the handshakes do not all queue at once.
      while (sockets.length < m.open) {
        const n = Math.min(200, m.open - sockets.length);
        const first = sockets.length;
        sockets.push(
          ...(await Promise.all(
            Array.from({ length: n }, (_, i) => {
              const u = (first + i) % m.urls.length;
              const onPush = (data: Buffer, at: number) =>
                pushDelays(sendTimes, data, at, (ms) => {
                  perUrl[u]!.histogram.add(ms);
                  perUrl[u]!.received++;
                  received++;
                });
              return openSubscriber(m.urls[u]!, m.token, m.channel, onPush, (code) => (closed[code] = (closed[code] ?? 0) + 1));
            }),
          )),
        );
      }
      reset(m.urls.length);
      send({ ready: sockets.length });
    } else if ('count' in m) {
      send({ count: received });
    } else {
      const cpu = process.cpuUsage(cpuSince);
      send({
        result: {
          perUrl: perUrl.map((u) => ({ received: u.received, histogram: u.histogram.pairs() })),
          cpuMs: (cpu.user + cpu.system) / 1000,
          closed,
        },
      });
      reset(perUrl.length);
    }
  });
}

// ---- poster and orchestration -----------------------------------------------------------------
interface Figures {
  subscribers: number;
  rate: number;
  delivered: number;
  expected: number;
  delivery: Histogram;
  exchangeMsPerOrder: number;
}

/** A child process's CPU seconds so far; 0 once it has gone. */
const cpuOf = (pid: number | undefined) => {
  try {
    return pid === undefined ? 0 : processCpuSeconds(pid);
  } catch {
    return 0;
  }
};

/** Node options of the subscriber processes (e.g. --cpu-prof), as ODDEX_NODE_ARGS gives the servers theirs. */
const clientNodeArgs = process.env.ODDEX_BENCH_CLIENT_ARGS?.split(' ').filter(Boolean) ?? [];

async function runMode(split: boolean, counts: number[], rates: number[], seconds: number, clientProcesses: number): Promise<Figures[]> {
  const figures: Figures[] = [];
  const redis = split ? await startRedis() : undefined;
  const secret = randomBytes(32).toString('hex');
  const shared: Record<string, string> = redis ? { ODDEX_REDIS_URL: redis.url, ODDEX_REALTIME_TOKEN_SECRET: secret } : {};
  const ex = await startBenchExchange(shared);
  const nodes: ChildExchange[] = redis ? await Promise.all([0, 1].map(() => spawnExchange({ ...shared, ODDEX_ROLES: 'realtime', ODDEX_LOG_LEVEL: 'warn' }))) : [];
  // What the nodes warn about (missed publications, a lost Redis connection), counted by its message.
  const warnings = new Map<string, number>();
  for (const node of nodes) {
    node.child.stdout!.on('data', (d: Buffer) => {
      for (const line of d.toString().split('\n')) {
        const msg = /"msg":"([^"]*)"/.exec(line)?.[1];
        if (msg) warnings.set(msg, (warnings.get(msg) ?? 0) + 1);
      }
    });
  }
  const redisPid = redis ? Number((await redis.client().info('server')).match(/process_id:(\d+)/)?.[1]) : undefined;
  const clients: ChildProcess[] = [];
  const probes: net.Socket[] = [];
  const probeRedis = redis?.client();
  const admin = redis?.client();
  /** Largest output buffer Redis held for a PUB/SUB connection (a node's, or the probe's) since the last reset. */
  let pubsubBufferMax = 0;
  const sampler = admin
    ? setInterval(() => {
        void admin.call('CLIENT', 'LIST', 'TYPE', 'pubsub').then((list) => {
          for (const m of String(list).matchAll(/ omem=(\d+)/g)) pubsubBufferMax = Math.max(pubsubBufferMax, Number(m[1]));
        });
      }, 50)
    : undefined;
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
    const ordersAt = (start: number, count: number, rate: number) =>
      Array.from({ length: count }, (_, i) => {
        const scheduledUs = BigInt(Math.round((start + (i * 1000) / rate) * 1000));
        return signedOrder(maker, market, { odds: BigInt(10 + (i % 30)) * E18, size: 10n * USDC, outcomeOne: true, salt: scheduledUs * SALT_SCALE + (++serial % SALT_SCALE) });
      });
    // Warm-up: JIT, the connection pool and the verification workers.
    for (const o of ordersAt(nowMs(), 200, 50)) await post(o);

    // Stage probes (nodes only): the publication as Redis hands it to subscribers, and each node's last socket.
    const atRedis = new Histogram();
    const atNodeLast = urls.map(() => new Histogram());
    if (probeRedis) {
      await probeRedis.subscribe(`oddex:pub:${channel}`);
      probeRedis.on('messageBuffer', (_c: Buffer, message: Buffer) => saltDelays(message, nowMs(), (ms) => atRedis.add(ms)));
    }

    const ask = (client: ChildProcess, m: ToClients) =>
      new Promise<FromClients>((resolve, reject) => {
        const onExit = (code: number | null) => reject(new Error(`subscriber process exited ${code}`));
        client.once('exit', onExit);
        client.once('message', (r: FromClients) => {
          client.off('exit', onExit);
          resolve(r);
        });
        client.send(m);
      });
    const askAll = (m: ToClients) => Promise.all(clients.map((c) => ask(c, m)));
    const baselines = new Map<number, { p50: number; p99: number }>();
    const before = machineConditions();
    const where = split ? 'split over two realtime nodes on Redis' : 'on the exchange process (memory broker)';
    console.log(
      `posting ${rates.join(', ')} orders/s for ${seconds} s each on one market; subscribers on ${channel.slice(0, 32)}... ${where}, ` +
        `read by ${clientProcesses} subscriber process(es); ${before.text}`,
    );
    for (const subscribers of counts) {
      if (subscribers > 0) {
        while (clients.length < clientProcesses) clients.push(fork(fileURLToPath(import.meta.url), ['--subscribers'], { execArgv: ['--import', 'tsx', ...clientNodeArgs] }));
        // Each process holds its share, spread over the nodes.
        await Promise.all(clients.map((c, k) => ask(c, { open: Math.floor(subscribers / clientProcesses) + (k < subscribers % clientProcesses ? 1 : 0), urls, token, channel })));
        if (split) {
          // Subscribed after every other socket of its node, the probe is written to last in each fan-out.
          for (const p of probes.splice(0)) p.destroy();
          for (const [u, url] of urls.entries()) {
            probes.push(await openSubscriber(url, token, channel, (data, at) => saltDelays(data, at, (ms) => atNodeLast[u]!.add(ms)), () => {}));
          }
        }
      }
      for (const rate of rates) {
        const count = rate * seconds;
        // Signed ahead with their scheduled send times; the open loop starts right after.
        const start = nowMs() + 200;
        const orders = ordersAt(start, count, rate);
        while (nowMs() < start) await new Promise((r) => setTimeout(r, 1));
        const pids = { exchange: ex.pid, nodes: nodes.map((n) => n.child.pid), redis: redisPid, clients: clients.map((c) => c.pid) };
        const cpuBefore = { exchange: cpuOf(pids.exchange), nodes: pids.nodes.map(cpuOf), redis: cpuOf(pids.redis), clients: pids.clients.map(cpuOf) };
        const posterCpu = process.cpuUsage();
        for (const h of [atRedis, ...atNodeLast]) h.clear();
        pubsubBufferMax = 0;
        const run = await openLoop(count, rate, async (i) => (await post(orders[i]!)).status === 200);
        const wall = run.seconds + 0.3;
        await new Promise((r) => setTimeout(r, 300)); // the last deliveries
        const cores = (now: number, then: number) => (now - then) / wall;
        const exchangeCores = cores(cpuOf(pids.exchange), cpuBefore.exchange);
        const nodeCores = pids.nodes.map((pid, i) => cores(cpuOf(pid), cpuBefore.nodes[i]!));
        const redisCores = cores(cpuOf(pids.redis), cpuBefore.redis);
        const clientCores = pids.clients.map((pid, i) => cores(cpuOf(pid), cpuBefore.clients[i]!));
        const poster = process.cpuUsage(posterCpu);
        const posterCores = (poster.user + poster.system) / 1e6 / wall;
        const load = readFileSync('/proc/loadavg', 'utf8').split(' ', 1)[0];
        const reply = percentiles(run.latencies);
        if (!baselines.has(rate)) baselines.set(rate, reply);
        const baseline = baselines.get(rate)!;
        const vs = (ms: number, base: number) => `${fmt(ms)} (${ms - base >= 0 ? '+' : ''}${(ms - base).toFixed(2)} ms)`;
        const exchangeMsPerOrder = (exchangeCores * wall * 1000) / count;
        const expected = count * subscribers;
        let line =
          `${String(subscribers).padStart(5)} subscribers, ${rate} orders/s: reply p50 ${vs(reply.p50, baseline.p50)}  p99 ${vs(reply.p99, baseline.p99)}  failures ${run.failures}\n` +
          `      cores while posting (load ${load}): exchange ${exchangeCores.toFixed(2)} (${exchangeMsPerOrder.toFixed(3)} ms per order)` +
          (split ? `, nodes ${nodeCores.map((c) => c.toFixed(2)).join(' + ')}, redis ${redisCores.toFixed(2)}` : '') +
          (clients.length > 0 && subscribers > 0 ? `, subscriber processes ${clientCores.map((c) => c.toFixed(2)).join(' + ')}` : '') +
          `, poster ${posterCores.toFixed(2)}`;
        if (subscribers > 0) {
          // Wait for what is still on its way: until every delivery arrived, or none arrived for 5 s.
          const drainStart = nowMs();
          let last = -1;
          /** What had arrived 0.3 s after the last order, where this bench used to stop counting. */
          let atCutOff: number | undefined;
          let lastChange = nowMs();
          for (;;) {
            const got = (await askAll({ count: true })).reduce((a, r) => a + (r as { count: number }).count, 0);
            atCutOff ??= got;
            if (got !== last) {
              last = got;
              lastChange = nowMs();
            }
            if (got >= expected || nowMs() - lastChange > 5000) break;
            await new Promise((r) => setTimeout(r, 200));
          }
          const drainedMs = Math.max(0, lastChange - drainStart);
          // CPU from the first order to the last delivery, per delivery: what each stage costs, whatever else runs.
          const nodeCpu = pids.nodes.reduce<number>((a, pid, i) => a + cpuOf(pid) - cpuBefore.nodes[i]!, 0);
          const clientCpu = pids.clients.reduce<number>((a, pid, i) => a + cpuOf(pid) - cpuBefore.clients[i]!, 0);
          const perDelivery = (cpu: number) => `${((cpu * 1e6) / Math.max(1, last)).toFixed(1)} µs`;
          const results = (await askAll({ report: true })).map((r) => (r as Extract<FromClients, { result: unknown }>).result);
          const all = new Histogram();
          const perUrl = urls.map(() => ({ received: 0, histogram: new Histogram() }));
          const closed: Record<number, number> = {};
          for (const r of results) {
            r.perUrl.forEach((u, i) => {
              perUrl[i]!.received += u.received;
              perUrl[i]!.histogram.merge(u.histogram);
              all.merge(u.histogram);
            });
            for (const [code, n] of Object.entries(r.closed)) closed[Number(code)] = (closed[Number(code)] ?? 0) + n;
          }
          const delivered = perUrl.reduce((a, u) => a + u.received, 0);
          const closedText = Object.keys(closed).length === 0 ? 'none' : Object.entries(closed).map(([code, n]) => `${n} with ${code}`).join(', ');
          line +=
            `\n      delivery ${all.text}; ${delivered} of ${expected} delivered (${((100 * delivered) / expected).toFixed(2)}%), ` +
            `the last ${(drainedMs / 1000).toFixed(1)} s after posting ended (${atCutOff} by 0.3 s after it); sockets closed: ${closedText}` +
            `\n      CPU per delivery until the last: ${split ? `nodes ${perDelivery(nodeCpu)}, ` : ''}subscriber processes ${perDelivery(clientCpu)}`;
          if (split) {
            perUrl.forEach((u, i) => {
              const share = Math.floor(subscribers / urls.length) + (i < subscribers % urls.length ? 1 : 0);
              line += `\n      node ${i}: delivery ${u.histogram.text}; ${u.received} of ${count * share}; its last socket (probe) ${atNodeLast[i]!.text}`;
            });
            line += `\n      at Redis (probe subscriber): ${atRedis.text}; largest PUB/SUB output buffer in Redis ${pubsubBufferMax} bytes`;
          }
          figures.push({ subscribers, rate, delivered, expected, delivery: all, exchangeMsPerOrder });
        } else {
          figures.push({ subscribers, rate, delivered: 0, expected: 0, delivery: new Histogram(), exchangeMsPerOrder });
        }
        console.log(line);
      }
    }
    if (split) console.log(`node warnings: ${warnings.size === 0 ? 'none' : [...warnings].map(([m, n]) => `${n}x "${m}"`).join(', ')}`);
    console.log('(reply: the poster\'s HTTP round trip from its scheduled send time; in brackets, the difference to the no-subscriber run)');
    console.log(`at the end: ${machineConditions(before.jiffies).text}`);
  } finally {
    clearInterval(sampler);
    for (const p of probes) p.destroy();
    for (const c of clients) c.kill();
    for (const node of nodes) node.child.kill();
    await ex.close();
    await redis?.stop();
  }
  return figures;
}

async function main(): Promise<void> {
  const counts = (process.argv[2] ?? '0,1000,5000').split(',').map(Number);
  const rates = (process.argv[3] ?? '50').split(',').map(Number);
  const seconds = Number(process.argv[4] ?? 5);
  const mode = process.argv[5] ?? 'memory';
  const clientProcesses = Number(process.argv[6] ?? 1);
  if (!['memory', 'nodes', 'both'].includes(mode)) throw new Error(`mode: memory, nodes or both, not ${mode}`);
  const memory = mode !== 'nodes' ? await runMode(false, counts, rates, seconds, clientProcesses) : [];
  const nodes = mode !== 'memory' ? await runMode(true, counts, rates, seconds, clientProcesses) : [];
  if (mode === 'both') {
    console.log('two realtime nodes on Redis beside one process (memory broker), same run:');
    for (const [i, n] of nodes.entries()) {
      const m = memory[i]!;
      const q = (h: Histogram, x: number) => h.at(x);
      const delivery = n.subscribers === 0 ? '' : `delivery p50 ${ratio(q(n.delivery, 0.5), q(m.delivery, 0.5))}  p95 ${ratio(q(n.delivery, 0.95), q(m.delivery, 0.95))}  p99 ${ratio(q(n.delivery, 0.99), q(m.delivery, 0.99))}; `;
      console.log(`${String(n.subscribers).padStart(5)} subscribers, ${n.rate} orders/s: ${delivery}exchange CPU per order ${ratio(n.exchangeMsPerOrder, m.exchangeMsPerOrder)}`);
    }
  }
}

if (process.argv[2] === '--subscribers') runSubscribers();
else await main();

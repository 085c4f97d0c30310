// `npm run cluster`: Oddex on several processes of this machine, as it runs on several machines. PostgreSQL, Redis
// and NATS at the URLs given (ODDEX_DATABASE_URL, ODDEX_REDIS_URL, ODDEX_NATS_URL), else started from their Debian
// binaries in a temp dir; then a sequencer and its hot standby, a projector and its standby, a settlement process and
// its standby, two gateways and two realtime nodes on loopback ports: free ones, or consecutive ones from ODDEX_PORT
// (`--port`) in the order of settings.ts.
// Prints where each listens (`--json`: one JSON line, for scripts); Ctrl-C stops everything it started and removes
// the data dirs, but keeps the processes' logs (what happened is what an operator looks at after a stop).
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { clusterServices } from './services.js';
import { stopOnSignals } from '../stop-signals.js';
import { startRole, type RoleProcess } from './role-process.js';
import { ClusterSettingError, clusterPorts, maskedUrl, type ClusterProcess } from './settings.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const json = process.argv.includes('--json');
const say = (line: string) => {
  if (!json) console.log(line);
};
let ports: Record<ClusterProcess, number>;
try {
  ports = clusterPorts(process.env, process.argv.slice(2));
} catch (err) {
  if (!(err instanceof ClusterSettingError)) throw err;
  console.error(`oddex cluster: ${err.message}`);
  process.exit(2);
}

const dir = mkdtempSync(join(tmpdir(), 'oddex-cluster-'));
const logs = mkdtempSync(join(tmpdir(), 'oddex-cluster-logs-'));
const services = await clusterServices(process.env);
const shared = {
  ODDEX_DATABASE_URL: services.databaseUrl,
  ODDEX_REDIS_URL: services.redisUrl,
  ODDEX_NATS_URL: services.natsUrl,
  ODDEX_ADMIN_TOKEN: process.env.ODDEX_ADMIN_TOKEN || randomBytes(24).toString('hex'),
  ODDEX_REALTIME_TOKEN_SECRET: process.env.ODDEX_REALTIME_TOKEN_SECRET || randomBytes(32).toString('hex'),
  ODDEX_HOST: '127.0.0.1',
  ODDEX_LOG_FORMAT: 'json',
};
/** The sequencer's process (and its standby's): the read models are written by the projector processes, fills settled by the settlement processes. */
const SEQUENCER_ROLES = 'sequencer,realtime';
const roles: RoleProcess[] = [];
let stopping = false;

/** What a process says once running that its operator wants to know: a standby's takeover and its API. */
function watch(p: RoleProcess, line: string): void {
  if (p.name !== 'standby') return;
  if (/took over as the writer/.test(line)) say('standby took over as the writer');
  else if (/listening on/.test(line) && !announced) {
    announced = true;
    say(`standby listening on ${p.url}`);
  }
}
let announced = false;

const start = async (name: ClusterProcess, env: Record<string, string>, readyLine?: RegExp) => {
  const dataDir = join(dir, name.replace(/ /g, '-'));
  mkdirSync(dataDir);
  const p = await startRole({ name, root: ROOT, env: { ...shared, ODDEX_PORT: String(ports[name]), ODDEX_DATA_DIR: dataDir, ...env }, logFile: join(logs, `${name.replace(/ /g, '-')}.log`), ...(readyLine ? { readyLine } : {}) }, watch);
  roles.push(p);
  void p.exited.then((code) => {
    if (!stopping) say(`${name} exited (code ${code}); its log: ${p.logFile}`);
  });
  return p;
};

async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  await Promise.all(
    roles.map(async (p) => {
      if (p.child.exitCode === null && p.child.signalCode === null) {
        p.child.kill('SIGTERM');
        const killLater = setTimeout(() => p.child.kill('SIGKILL'), 10_000);
        await p.exited;
        clearTimeout(killLater);
      }
    }),
  );
  await services.stop();
  rmSync(dir, { recursive: true, force: true });
  say(`stopped; the logs are kept in ${logs}`);
}

stopOnSignals(() => void stop().then(() => process.exit(0)), { watchParent: process.env.npm_lifecycle_event === 'cluster' });

try {
  // The sequencer first: it migrates the database and (in demo mode) writes the catalogue the others read.
  const sequencer = await start('sequencer', { ODDEX_ROLES: SEQUENCER_ROLES });
  const standby = await start('standby', { ODDEX_ROLES: SEQUENCER_ROLES, ODDEX_STANDBY: 'true', ODDEX_DEMO_LIQUIDITY: 'false' }, /standing by/);
  // The first takes the projector's lock; the second waits for it.
  const projector = await start('projector', { ODDEX_ROLES: 'projector' }, /projecting the read models/);
  // Likewise the settlement lock: one signer.
  const settlement = await start('settlement', { ODDEX_ROLES: 'settlement' }, /settling fills on the chain/);
  const [projectorStandby, settlementStandby, gateway1, gateway2, realtime1, realtime2] = await Promise.all([
    start('projector standby', { ODDEX_ROLES: 'projector' }),
    start('settlement standby', { ODDEX_ROLES: 'settlement' }),
    start('gateway 1', { ODDEX_ROLES: 'gateway', ODDEX_DEMO_LIQUIDITY: 'false' }),
    start('gateway 2', { ODDEX_ROLES: 'gateway', ODDEX_DEMO_LIQUIDITY: 'false' }),
    start('realtime 1', { ODDEX_ROLES: 'realtime' }),
    start('realtime 2', { ODDEX_ROLES: 'realtime' }),
  ]);
  const ws = (p: RoleProcess) => p.url!.replace(/^http/, 'ws') + '/connection/websocket';
  if (json) {
    console.log(
      JSON.stringify({
        sequencer: { url: sequencer.url, pid: sequencer.child.pid },
        standby: { pid: standby.child.pid },
        projectors: [projector, projectorStandby!].map((p) => ({ url: p.url, pid: p.child.pid })),
        settlement: [settlement, settlementStandby!].map((p) => ({ url: p.url, pid: p.child.pid })),
        gateways: [gateway1!, gateway2!].map((g) => ({ url: g.url, pid: g.child.pid })),
        realtime: [realtime1!, realtime2!].map((r) => ({ url: ws(r), pid: r.child.pid })),
        // Printed without their passwords: this output ends up in terminals and CI logs.
        databaseUrl: maskedUrl(services.databaseUrl),
        redisUrl: maskedUrl(services.redisUrl),
        natsUrl: maskedUrl(services.natsUrl),
        adminToken: shared.ODDEX_ADMIN_TOKEN,
        realtimeTokenSecret: shared.ODDEX_REALTIME_TOKEN_SECRET,
        logs,
      }),
    );
  } else {
    const rows: [string, string][] = [
      ['sequencer', `${sequencer.url}  (the full API with /admin; pid ${sequencer.child.pid})`],
      ['standby', `following the journal, takes over if the sequencer dies (pid ${standby.child.pid})`],
      ['projector', `${projector.url}/metrics  (writes the read models; pid ${projector.child.pid})`],
      ['projector 2', `${projectorStandby!.url}/metrics  (stands by; projects if the first one dies; pid ${projectorStandby!.child.pid})`],
      ['settlement', `${settlement.url}/metrics  (settles fills on the chain; pid ${settlement.child.pid})`],
      ['settlement 2', `${settlementStandby!.url}/metrics  (stands by; settles if the first one dies; pid ${settlementStandby!.child.pid})`],
      ['gateway 1', `${gateway1!.url}  (the trading API; pid ${gateway1!.child.pid})`],
      ['gateway 2', `${gateway2!.url}  (the trading API; pid ${gateway2!.child.pid})`],
      ['realtime 1', `${ws(realtime1!)}  (pid ${realtime1!.child.pid})`],
      ['realtime 2', `${ws(realtime2!)}  (pid ${realtime2!.child.pid})`],
      ['postgresql', maskedUrl(services.databaseUrl) + (services.started.includes('postgres') ? '  (started here)' : '')],
      ['redis', maskedUrl(services.redisUrl) + (services.started.includes('redis') ? '  (started here)' : '')],
      ['nats', maskedUrl(services.natsUrl) + (services.started.includes('nats') ? '  (started here)' : '')],
      ['admin token', shared.ODDEX_ADMIN_TOKEN],
      // Every process shares it: a process an operator adds (a new standby after a takeover) needs it too.
      ['token secret', `ODDEX_REALTIME_TOKEN_SECRET=${shared.ODDEX_REALTIME_TOKEN_SECRET}`],
      ['logs', logs],
    ];
    say('Oddex cluster running:');
    for (const [what, where] of rows) say(`  ${what.padEnd(12)} ${where}`);
    say('Ctrl-C stops every process and what this command started (the logs stay).');
  }
} catch (err) {
  console.error(`oddex cluster: ${err instanceof Error ? err.message : String(err)}`);
  await stop();
  process.exit(1);
}

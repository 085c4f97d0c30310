// A throw-away PostgreSQL cluster (Debian's `postgresql` package): initdb in a fresh temp dir, a free loopback port,
// its socket in that dir, fsync on (crash tests rely on what a commit made durable). initdb and postgres refuse to
// run as root, so as root they run as Debian's `postgres` user. Used by `npm run cluster`, tests and benchmarks.
import { execFile } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './free-port.js';

const run = promisify(execFile);

/** The newest installed server's binaries (Debian keeps each major version apart and off PATH), if any. */
export const postgresBinDir: string | undefined = (() => {
  // ODDEX_PG_BIN names another installation's bin dir (an empty or wrong one: none).
  if (process.env.ODDEX_PG_BIN !== undefined) return existsSync(join(process.env.ODDEX_PG_BIN, 'initdb')) ? process.env.ODDEX_PG_BIN : undefined;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(root, versions[0], 'bin');
})();

/** Why no local cluster can be started here (undefined: it can). */
export const noPostgres = postgresBinDir ? undefined : 'no PostgreSQL server binaries (/usr/lib/postgresql/*/bin/initdb): apt-get install postgresql';

const asRoot = process.getuid?.() === 0;

export interface LocalPostgres {
  port: number;
  /** The cluster's data dir (its postmaster.pid names the server's process). */
  dataDir: string;
  /** The cluster's maintenance database. */
  url: string;
  /** Creates an empty database (named, or the next `test_N`) and returns its URL. */
  createDatabase(name?: string): Promise<string>;
  /** `pg_ctl stop -m immediate`: the server dies as on a power cut (no checkpoint; WAL recovery at the next start). */
  crash(): Promise<void>;
  /** `pg_ctl stop -m fast`, keeping the cluster. */
  halt(): Promise<void>;
  /** Starts the same cluster again on the same port. */
  start(): Promise<void>;
  /** Stops the server and removes the cluster. */
  stop(): Promise<void>;
}

const exec = (name: string, args: string[]) => {
  const bin = join(postgresBinDir!, name);
  return asRoot ? run('runuser', ['-u', 'postgres', '--', bin, ...args]) : run(bin, args);
};

/** A new dir for a cluster's files. As root, under /tmp: the postgres user must reach it, and root's TMPDIR may be private to root. */
async function clusterDir(): Promise<string> {
  const dir = mkdtempSync(join(asRoot ? '/tmp' : tmpdir(), 'oddex-pg-'));
  if (asRoot) {
    const { uid, gid } = await postgresUser();
    chownSync(dir, uid, gid);
  }
  chmodSync(dir, 0o700);
  return dir;
}

/** initdb's fresh cluster files in `data`. --no-sync: only initdb's own files; the server itself runs with fsync on. */
const initdb = (data: string) => exec('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C', '--no-sync']);

const templates = new Map<string, Promise<string>>();

/**
 * The files of a fresh cluster kept in `templateDir` (made by initdb at the first call, in any process: the first
 * to finish is kept); a copy of them is the cluster initdb would make, in a fraction of its time.
 */
function template(templateDir: string): Promise<string> {
  const data = join(templateDir, 'data');
  let made = templates.get(data);
  if (!made) {
    made = (async () => {
      if (existsSync(join(data, 'PG_VERSION'))) return data;
      const making = await clusterDir();
      try {
        await initdb(join(making, 'data'));
        try {
          renameSync(join(making, 'data'), data);
        } catch (err) {
          // Another process's template came first: the same files.
          if (!existsSync(join(data, 'PG_VERSION'))) throw err;
        }
      } finally {
        rmSync(making, { recursive: true, force: true });
      }
      return data;
    })();
    made.catch(() => templates.delete(data));
    templates.set(data, made);
  }
  return made;
}

/**
 * `port`: this one rather than a free one. `templateDir`: a dir where the files of a fresh cluster are kept and
 * copied from, rather than running initdb for each cluster (test runs start dozens).
 */
export async function startPostgres(opts: { maxConnections?: number; port?: number; templateDir?: string } = {}): Promise<LocalPostgres> {
  if (!postgresBinDir) throw new Error(noPostgres);
  const dir = await clusterDir();
  const data = join(dir, 'data');
  // cp -a keeps the files' owner (the postgres user, when root copies them) and modes.
  if (opts.templateDir) await run('cp', ['-a', await template(opts.templateDir), data]);
  else await initdb(data);
  const port = opts.port ?? (await freePort());
  const options = [
    `-p ${port}`,
    '-c listen_addresses=127.0.0.1',
    `-c unix_socket_directories=${dir}`,
    '-c fsync=on',
    '-c synchronous_commit=on',
    `-c max_connections=${opts.maxConnections ?? 50}`,
  ].join(' ');
  const pgCtl = (args: string[]) => exec('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-w', '-t', '60', ...args]);
  const start = async () => {
    await pgCtl(['-o', options, 'start']);
  };
  await start();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let databases = 0;
  return {
    port,
    dataDir: data,
    url,
    async createDatabase(name = `test_${++databases}`) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
      } finally {
        await client.end();
      }
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    crash: async () => {
      await pgCtl(['-m', 'immediate', 'stop']);
    },
    halt: async () => {
      await pgCtl(['-m', 'fast', 'stop']);
    },
    start,
    async stop() {
      await pgCtl(['-m', 'fast', 'stop']).catch(() => {}); // already stopped
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function postgresUser(): Promise<{ uid: number; gid: number }> {
  const { stdout } = await run('id', ['-u', 'postgres']).catch(() => {
    throw new Error('running as root, PostgreSQL needs the `postgres` system user (Debian’s postgresql package creates it)');
  });
  const { stdout: g } = await run('id', ['-g', 'postgres']);
  return { uid: Number(stdout.trim()), gid: Number(g.trim()) };
}

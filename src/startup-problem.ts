// Why a process could not start, in one line that names the setting to change, for the failures an operator meets
// (a port taken, a data dir that cannot be written, a host that does not resolve, a service that refuses the
// connection); undefined for anything else, which is shown whole.
import type { Config } from './config.js';
import { SetupError } from './setup-error.js';

interface SystemError {
  code?: string;
  /** Set on an error PostgreSQL sent (pg's DatabaseError), whose code is then its SQLSTATE. */
  severity?: string;
  syscall?: string;
  path?: string;
  port?: number;
  address?: string;
  hostname?: string;
}

type StartupConfig = Pick<Config, 'dataDir' | 'host' | 'port'> & Partial<Pick<Config, 'databaseUrl' | 'redisUrl' | 'natsUrl' | 'evm'>>;

/** The URL settings of the services a process connects to, with the host and port each names. */
function serviceUrls(config: StartupConfig): { setting: string; host: string; port: string }[] {
  const urls: [string, string | undefined, string][] = [
    ['ODDEX_DATABASE_URL', config.databaseUrl, '5432'],
    ['ODDEX_REDIS_URL', config.redisUrl, '6379'],
    ['ODDEX_NATS_URL', config.natsUrl?.split(',')[0], '4222'],
    ['ODDEX_RPC_URL', config.evm?.rpcUrl, '80'],
  ];
  return urls.flatMap(([setting, raw, defaultPort]) => {
    if (!raw) return [];
    try {
      const url = new URL(raw.includes('://') ? raw : `nats://${raw}`);
      return [{ setting, host: url.hostname.replace(/^\[|\]$/g, ''), port: url.port || defaultPort }];
    } catch {
      return [];
    }
  });
}

export function startupProblem(err: unknown, config: StartupConfig | undefined): string | undefined {
  if (err instanceof SetupError) return err.message;
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as SystemError;
  if (config && e.syscall === 'getaddrinfo' && (e.code === 'ENOTFOUND' || e.code === 'EAI_AGAIN')) {
    if (e.hostname === config.host) return `host ${e.hostname} does not resolve to an address of this machine: choose another with --host (ODDEX_HOST)`;
    const service = serviceUrls(config).find((u) => u.host === e.hostname);
    if (service) return `host ${e.hostname} does not resolve (${e.code}): check ${service.setting}`;
  }
  if (config && e.code === 'ECONNREFUSED' && e.port !== undefined) {
    const service = serviceUrls(config).find((u) => u.port === String(e.port));
    if (service) return `nothing accepts connections at ${e.address ?? service.host}:${e.port} (ECONNREFUSED): is the service running, and is ${service.setting} right?`;
  }
  // PostgreSQL answered and refused: the login (class 28: a wrong password or user, no pg_hba.conf entry) or the database.
  if (config?.databaseUrl && e.severity !== undefined && typeof e.code === 'string') {
    const said = (err as Error).message;
    if (e.code.startsWith('28')) return `PostgreSQL refused the login (${said}): check the user and password in ODDEX_DATABASE_URL`;
    if (e.code === '3D000') return `${said}: create it (createdb) or name another in ODDEX_DATABASE_URL`;
  }
  if (e.syscall === 'listen') {
    const where = `${e.address ?? config?.host ?? ''}:${e.port ?? config?.port ?? ''}`;
    if (e.code === 'EADDRINUSE') return `${where} is already in use by another program: stop it, or choose another port with --port (ODDEX_PORT)`;
    if (e.code === 'EACCES') return `may not listen on ${where} (ports below 1024 need privileges): choose another with --port (ODDEX_PORT)`;
    if (e.code === 'EADDRNOTAVAIL') return `${where}: no interface of this machine has that address: choose another with --host (ODDEX_HOST)`;
    return undefined;
  }
  const unwritable = ['EROFS', 'EACCES', 'EPERM', 'ENOENT', 'ENOSPC', 'ENOTDIR'];
  if (config && e.code && unwritable.includes(e.code) && e.path?.startsWith(config.dataDir)) {
    return `data dir ${config.dataDir} cannot be created or written (${e.code} on ${e.syscall ?? 'access'} of ${e.path}): give a writable one with --data-dir (ODDEX_DATA_DIR)`;
  }
  return undefined;
}

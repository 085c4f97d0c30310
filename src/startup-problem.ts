// Why a process could not start, in one line that names the setting to change, for the failures an operator meets
// (a port taken, a data dir that cannot be written); undefined for anything else, which is shown whole.
import type { Config } from './config.js';

interface SystemError {
  code?: string;
  syscall?: string;
  path?: string;
  port?: number;
  address?: string;
}

export function startupProblem(err: unknown, config: Pick<Config, 'dataDir' | 'host' | 'port'> | undefined): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as SystemError;
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

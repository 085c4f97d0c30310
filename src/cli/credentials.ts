// Where the CLI finds secrets: the wallet key and the admin token come from the environment or from files,
// never from a command-line argument (visible in `ps`), and are never printed.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export class UsageError extends Error {}

const readSecretFile = (path: string, what: string): string => {
  try {
    return readFileSync(resolve(path), 'utf8').trim();
  } catch (err) {
    throw new UsageError(`cannot read the ${what} file ${path}: ${(err as Error).message}`);
  }
};

/** The private key: --key-file, else ODDEX_PRIVATE_KEY, else the file named by ODDEX_KEY_FILE. */
export function privateKeyFrom(opts: { keyFile?: string }, env = process.env): string {
  const file = opts.keyFile ?? env.ODDEX_KEY_FILE;
  const key = file ? readSecretFile(file, 'key') : env.ODDEX_PRIVATE_KEY?.trim();
  if (!key) throw new UsageError('this command signs: set ODDEX_PRIVATE_KEY, or ODDEX_KEY_FILE / --key-file to a file holding the key');
  if (!/^0x[0-9a-fA-F]{64}$/.test(key)) throw new UsageError('the private key must be 0x followed by 64 hex digits');
  return key;
}

/**
 * The admin token: ODDEX_ADMIN_TOKEN, else --admin-token-file / ODDEX_ADMIN_TOKEN_FILE, else admin-token in the
 * exchange's data dir (ODDEX_DATA_DIR, as the server reads it; default ./data).
 */
export function adminTokenFrom(opts: { adminTokenFile?: string }, env = process.env): string {
  if (env.ODDEX_ADMIN_TOKEN?.trim()) return env.ODDEX_ADMIN_TOKEN.trim();
  const inDataDir = join(env.ODDEX_DATA_DIR?.trim() || 'data', 'admin-token');
  const file = opts.adminTokenFile ?? env.ODDEX_ADMIN_TOKEN_FILE ?? (existsSync(inDataDir) ? inDataDir : undefined);
  if (!file) {
    throw new UsageError(`operator commands need the admin token: no ${inDataDir}; set ODDEX_ADMIN_TOKEN, or ODDEX_ADMIN_TOKEN_FILE / --admin-token-file`);
  }
  return readSecretFile(file, 'admin token');
}

export const apiKeyFrom = (env = process.env): string | undefined => env.ODDEX_API_KEY?.trim() || undefined;

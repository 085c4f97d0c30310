// Small files a process keeps in its data dir (the admin token, the demo wallets): written whole or not at all, so a
// crash while writing one never leaves an empty or partial file that the next start would take for the real one.
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/** Writes `text` to `path`, owner-only: to a temporary file, synced, then renamed over `path` (and the dir synced). */
export function writePrivateFile(path: string, text: string): void {
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    const fd = openSync(temporary, 'w', 0o600);
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, path);
  } catch (err) {
    rmSync(temporary, { force: true });
    throw err;
  }
  const dir = openSync(dirname(path), 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}

/** The file's text, or undefined when it is missing or holds nothing but whitespace (as an older crash could leave it). */
export function readPrivateFile(path: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  return text.trim() === '' ? undefined : text;
}

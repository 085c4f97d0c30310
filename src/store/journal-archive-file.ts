// The file archived journal rows move to, the same for every store: gzip'd NDJSON, one row a line as the journal
// holds it ({seq, at_ms, command, changes}: the command's and the change records' encodings as stored). It is
// written under a temporary name, synced and renamed before the store deletes the rows, so a crash at any point
// leaves the rows in the journal, in a complete file, or both. An archive run again after such a crash starts at the
// same position, maybe with a later end: the files that crash left (a partial one, or a complete one whose rows were
// never deleted) are removed once the new file is in place, so no row is ever in two files.
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { createGunzip, createGzip } from 'node:zlib';
import { createInterface } from 'node:readline';

export interface ArchivedRow {
  seq: number;
  at_ms: number;
  command: string;
  /** Null for rows journaled before change records were. */
  changes: string | null;
}

/** What an archive moved: journal positions `from` through `to`, `rows` of them, into `file`. */
export interface ArchivedRange {
  from: number;
  to: number;
  rows: number;
  file: string;
}

export const archiveFileName = (from: number, to: number) => `journal-${from}-${to}.ndjson.gz`;
/** The rows an archive file holds, read back from its name (archiveFileName's); undefined for any other file. */
function archivedRange(name: string): { from: number; to: number } | undefined {
  const m = /^journal-(\d+)-(\d+)\.ndjson\.gz$/.exec(name);
  return m ? { from: Number(m[1]), to: Number(m[2]) } : undefined;
}

/**
 * Writes the rows of `pages` (in journal order, read a page at a time) into `dir`, durably; resolves to the file's
 * path and how many rows it holds.
 */
export async function writeArchiveFile(dir: string, from: number, to: number, pages: AsyncIterable<readonly ArchivedRow[]>): Promise<{ file: string; rows: number }> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, archiveFileName(from, to));
  const partial = `${file}.partial`;
  let rows = 0;
  async function* lines() {
    for await (const page of pages) {
      rows += page.length;
      if (page.length > 0) yield page.map((r) => JSON.stringify(r)).join('\n') + '\n';
    }
  }
  try {
    await pipeline(Readable.from(lines()), createGzip(), createWriteStream(partial, { mode: 0o600 }));
    await syncPath(partial);
    await rename(partial, file);
    await removeLeftovers(dir, from, file);
    await syncPath(dir);
  } catch (err) {
    await rm(partial, { force: true });
    throw err;
  }
  return { file, rows };
}

/**
 * Removes what an archive interrupted by a crash left in `dir`: any partial file, and complete files starting at
 * `from` other than `kept`. Their rows were never deleted from the journal (an archive starts after the last one
 * deleted), so `kept` holds them all.
 */
async function removeLeftovers(dir: string, from: number, kept: string): Promise<void> {
  const stale = (name: string) => name.endsWith('.partial') || (name.startsWith(`journal-${from}-`) && name.endsWith('.ndjson.gz'));
  for (const name of await readdir(dir)) {
    const path = join(dir, name);
    if (path !== kept && stale(name)) await rm(path, { force: true });
  }
}

/** fsync of a file, or of a directory (the rename's entry). */
async function syncPath(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** The archive files in `dir` by the range each holds, in journal order (none if the dir is missing). */
export async function archiveFiles(dir: string): Promise<{ from: number; to: number; file: string }[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return names
    .flatMap((name) => {
      const range = archivedRange(name);
      return range ? [{ ...range, file: join(dir, name) }] : [];
    })
    .sort((a, b) => a.from - b.from);
}

/**
 * The archived rows after `afterSeq`, read back from the files in `dir` in journal order, `pageSize` at a time; ends
 * where the files stop following on (a file missing, or none left).
 */
export async function* readArchivedRows(dir: string, afterSeq: number, pageSize: number): AsyncGenerator<ArchivedRow[]> {
  let at = afterSeq;
  for (const { from, to, file } of await archiveFiles(dir)) {
    if (to <= at) continue;
    if (from > at + 1) return;
    let page: ArchivedRow[] = [];
    const lines = createInterface({ input: createReadStream(file).pipe(createGunzip()), crlfDelay: Infinity });
    for await (const line of lines) {
      if (line === '') continue;
      const row = JSON.parse(line) as ArchivedRow;
      const seq = Number(row.seq);
      if (seq <= at) continue;
      page.push({ ...row, seq, at_ms: Number(row.at_ms) });
      at = seq;
      if (page.length >= pageSize) {
        yield page;
        page = [];
      }
    }
    if (page.length > 0) yield page;
  }
}

// Which database pages commits wrote: every commit appends each page it changed to the WAL once, so the frames in the
// WAL since a checkpoint are the write cost of the commits since. Counted per B-tree (table or index) through SQLite's
// dbstat table, for the bench and for tests that hold per-fill write cost down.
import { readFileSync } from 'node:fs';
import type { Db } from './db.js';

const WAL_HEADER_BYTES = 32;
const FRAME_HEADER_BYTES = 24;

/** Checkpoints the whole WAL (no other connection may be reading), so the next commit starts it afresh. */
export function checkpointAll(db: Db): void {
  const [r] = db.pragma('wal_checkpoint(PASSIVE)') as { busy: number; log: number; checkpointed: number }[];
  if (!r || r.busy !== 0 || r.checkpointed !== r.log) throw new Error(`WAL not fully checkpointed: ${JSON.stringify(r)}`);
}

/**
 * Pages written to the WAL since the last `checkpointAll`, by the B-tree that owns them now; pages no B-tree owns
 * (free-list pages) count under "(free)". Checkpoints again, so calls measure consecutive stretches.
 */
export function walPagesByTree(db: Db): Map<string, number> {
  const [r] = db.pragma('wal_checkpoint(PASSIVE)') as { log: number }[];
  const frames = r?.log ?? 0;
  const wal = readFileSync(`${db.name}-wal`);
  const pageSize = wal.readUInt32BE(8);
  const owner = new Map<number, string>();
  for (const row of db.prepare('SELECT name, pageno FROM dbstat').iterate() as Iterable<{ name: string; pageno: number }>) {
    owner.set(row.pageno, row.name);
  }
  const byTree = new Map<string, number>();
  for (let i = 0; i < frames; i++) {
    const page = wal.readUInt32BE(WAL_HEADER_BYTES + i * (FRAME_HEADER_BYTES + pageSize));
    const tree = owner.get(page) ?? '(free)';
    byTree.set(tree, (byTree.get(tree) ?? 0) + 1);
  }
  checkpointAll(db);
  return byTree;
}

export const totalPages = (byTree: ReadonlyMap<string, number>) => [...byTree.values()].reduce((a, b) => a + b, 0);

// Reads a SQLite WAL file the way recovery will (https://www.sqlite.org/fileformat2.html#walformat) and says how
// much of its tail recovery is going to discard. SQLite drops a torn tail silently; the exchange reports it.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

const WAL_HEADER = 32;
const FRAME_HEADER = 24;
const MAGIC_LE = 0x377f0682;
const MAGIC_BE = 0x377f0683;

export interface WalReport {
  /** Frames recovery keeps (up to and including the last valid commit frame). */
  committedFrames: number;
  /** Bytes of the current WAL generation after them: a torn write or a transaction that never committed. */
  discardedBytes: number;
  /** True when the header itself is damaged while the file is not empty. */
  badHeader: boolean;
}

/** SQLite's WAL checksum: pairs of 32-bit words, carried on from the previous frame. */
function checksum(buf: Buffer, bigEndian: boolean, s: [number, number]): [number, number] {
  let [s0, s1] = s;
  for (let i = 0; i + 8 <= buf.length; i += 8) {
    const a = bigEndian ? buf.readUInt32BE(i) : buf.readUInt32LE(i);
    const b = bigEndian ? buf.readUInt32BE(i + 4) : buf.readUInt32LE(i + 4);
    s0 = (s0 + a + s1) >>> 0;
    s1 = (s1 + b + s0) >>> 0;
  }
  return [s0, s1];
}

/** Inspects `path` (a `-wal` file); a missing or empty file reports nothing to discard. */
export function inspectWal(path: string): WalReport {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return { committedFrames: 0, discardedBytes: 0, badHeader: false };
  }
  try {
    const size = fstatSync(fd).size;
    if (size === 0) return { committedFrames: 0, discardedBytes: 0, badHeader: false };
    const header = Buffer.alloc(WAL_HEADER);
    const damaged = { committedFrames: 0, discardedBytes: size, badHeader: true };
    if (readSync(fd, header, 0, WAL_HEADER, 0) < WAL_HEADER) return damaged;
    const magic = header.readUInt32BE(0);
    if (magic !== MAGIC_LE && magic !== MAGIC_BE) return damaged;
    const bigEndian = magic === MAGIC_BE;
    const pageSize = header.readUInt32BE(8) === 1 ? 65536 : header.readUInt32BE(8);
    let sum = checksum(header.subarray(0, 24), bigEndian, [0, 0]);
    if (sum[0] !== header.readUInt32BE(24) || sum[1] !== header.readUInt32BE(28)) return damaged;
    const salt1 = header.readUInt32BE(16);
    const salt2 = header.readUInt32BE(20);

    const frame = Buffer.alloc(FRAME_HEADER + pageSize);
    let pos = WAL_HEADER;
    let committedEnd = WAL_HEADER;
    let committedFrames = 0;
    let frames = 0;
    let generationEnd = WAL_HEADER; // end of the bytes that belong to this WAL generation
    let broken = false; // recovery stops at the first frame that fails its checksum
    while (pos < size) {
      const n = readSync(fd, frame, 0, frame.length, pos);
      const sameGeneration = n >= 16 && frame.readUInt32BE(8) === salt1 && frame.readUInt32BE(12) === salt2;
      if (n < frame.length) {
        // A partial frame: torn if it carries this generation's salts (or is too short to tell).
        if (sameGeneration || n < 16) generationEnd = size;
        break;
      }
      if (!sameGeneration) break; // a frame left from before the last checkpoint reset: not part of this log
      pos += frame.length;
      generationEnd = pos;
      if (broken) continue;
      const next = checksum(frame.subarray(FRAME_HEADER), bigEndian, checksum(frame.subarray(0, 8), bigEndian, sum));
      if (next[0] !== frame.readUInt32BE(16) || next[1] !== frame.readUInt32BE(20)) {
        broken = true;
        continue;
      }
      sum = next;
      frames++;
      if (frame.readUInt32BE(4) !== 0) {
        committedFrames = frames;
        committedEnd = pos;
      }
    }
    return { committedFrames, discardedBytes: Math.max(0, generationEnd - committedEnd), badHeader: false };
  } finally {
    closeSync(fd);
  }
}

// The projection loop with a projector whose writes are awaited (a database server's): batches are written one at a
// time, readers and publications follow only what was written, a refused batch is written again, and publications
// go out in journal order whatever order their preparation ends in.
import { describe, expect, it } from 'vitest';
import type { Change } from '../engine/changes.js';
import type { ProjectedEntry } from './ports.js';
import { ProjectionLoop, type BatchProjector } from './projection-loop.js';

/** A command's entry whose one change record carries its position (as `at`), for the fake publisher to recognise. */
const entry = (seq: number): ProjectedEntry => ({ seq, at: seq, changes: [{ type: 'heartbeatExpired', requestor: '0x1', at: seq }] });
const seqsOf = (changes: readonly Change[]) =>
  changes.map((c) => {
    if (c.type !== 'heartbeatExpired') throw new Error(`unexpected ${c.type}`);
    return c.at;
  });

/** Writes after a delay; refuses the writes it is told to. */
class SlowProjector implements BatchProjector {
  readonly written: number[][] = [];
  inFlight = 0;
  maxInFlight = 0;
  refuseNext = 0;
  async project(groups: readonly (readonly ProjectedEntry[])[]): Promise<void> {
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    await new Promise((r) => setTimeout(r, 5));
    this.inFlight--;
    if (this.refuseNext > 0) {
      this.refuseNext--;
      throw new Error('refused');
    }
    this.written.push(groups.flatMap((g) => g.map((e) => e.seq)));
  }
}

function loopOf(projector: SlowProjector, prepareDelayMs: (seq: number) => number = () => 0) {
  const published: number[] = [];
  const problems: unknown[] = [];
  const loop = new ProjectionLoop(projector, 0, {
    prepareFanOut: async (entries) => {
      const seqs = seqsOf(entries.flatMap((e) => e.changes));
      await new Promise((r) => setTimeout(r, prepareDelayMs(seqs[0]!)));
      return () => published.push(...seqs);
    },
    onProblem: (err) => problems.push(err),
    publicationsLost: (err) => problems.push(err),
    retryMs: 5,
    maxBatch: 3,
  });
  return { loop, published, problems };
}

describe('ProjectionLoop with an awaited projector', () => {
  it('writes one batch at a time, in order, and moves its position only once a batch is written', async () => {
    const projector = new SlowProjector();
    const { loop, published } = loopOf(projector);
    for (let seq = 1; seq <= 7; seq++) loop.enqueue([entry(seq)]);
    expect(loop.position).toBe(0);
    const reader = loop.waitFor(7, 5_000);
    await loop.flush();
    expect(await reader).toBe(true);
    expect(loop.position).toBe(7);
    expect(projector.written.flat()).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(projector.written.every((b) => b.length <= 3)).toBe(true);
    expect(projector.maxInFlight).toBe(1);
    await loop.publishedAll();
    expect(published).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('writes a refused batch again: nothing is lost or published twice, and readers wait meanwhile', async () => {
    const projector = new SlowProjector();
    projector.refuseNext = 2;
    const { loop, published, problems } = loopOf(projector);
    loop.enqueue([entry(1), entry(2)]);
    expect(await loop.waitFor(2, 8)).toBe(false);
    expect(await loop.waitFor(2, 5_000)).toBe(true);
    expect(problems.map((p) => (p as Error).message)).toEqual(['refused', 'refused']);
    expect(projector.written.flat()).toEqual([1, 2]);
    await loop.publishedAll();
    expect(published).toEqual([1, 2]);
  });

  it('publishes in journal order when a later group is prepared first', async () => {
    const projector = new SlowProjector();
    const { loop, published } = loopOf(projector, (seq) => (seq === 1 ? 30 : 0));
    loop.enqueue([entry(1)]);
    loop.enqueue([entry(2)]);
    await loop.flush();
    await loop.publishedAll();
    expect(published).toEqual([1, 2]);
  });

  it('resolves publishedJournaled once everything journaled before the call is published, however long projection takes', async () => {
    const projector = new SlowProjector();
    projector.refuseNext = 3;
    const { loop, published } = loopOf(projector, (seq) => (seq === 2 ? 30 : 0));
    loop.enqueue([entry(1)]);
    loop.enqueue([entry(2)]);
    const covered = loop.publishedJournaled().then(() => [...published]);
    loop.enqueue([entry(3)]);
    // Three refused batches later, still waited for (no timeout), and group 2's slow preparation too.
    expect((await covered).slice(0, 2)).toEqual([1, 2]);
    await loop.publishedAll();
    expect(await loop.publishedJournaled().then(() => published)).toEqual([1, 2, 3]);
  });

  it('reports as lost, in journal order, a group whose fan-out throws or whose preparation fails, and publishes the rest', async () => {
    const projector = new SlowProjector();
    const published: number[] = [];
    const events: string[] = [];
    const loop = new ProjectionLoop(projector, 0, {
      prepareFanOut: async (entries) => {
        const seqs = seqsOf(entries.flatMap((e) => e.changes));
        // Group 4's preparation fails before group 3's (slow) one ends: still reported after 3 is published.
        if (seqs[0] === 4) throw new Error('not prepared');
        if (seqs[0] === 3) await new Promise((r) => setTimeout(r, 20));
        return () => {
          if (seqs[0] === 2) throw new Error('fan-out failed');
          published.push(...seqs);
          events.push(`published ${seqs[0]}`);
        };
      },
      onProblem: (err) => events.push(`problem ${(err as Error).message}`),
      publicationsLost: (err) => events.push(`lost ${(err as Error).message}`),
    });
    for (let seq = 1; seq <= 5; seq++) loop.enqueue([entry(seq)]);
    await loop.flush();
    await loop.publishedAll();
    expect(published).toEqual([1, 3, 5]);
    expect(events).toEqual(['published 1', 'lost fan-out failed', 'published 3', 'lost not prepared', 'published 5']);
  });

  it('goes on publishing when reporting a loss throws', async () => {
    const projector = new SlowProjector();
    const published: number[] = [];
    const problems: string[] = [];
    const loop = new ProjectionLoop(projector, 0, {
      prepareFanOut: async (entries) => {
        const seqs = seqsOf(entries.flatMap((e) => e.changes));
        if (seqs[0] === 1) throw new Error('not prepared');
        return () => published.push(...seqs);
      },
      onProblem: (err) => problems.push((err as Error).message),
      publicationsLost: () => {
        throw new Error('the report failed');
      },
    });
    for (let seq = 1; seq <= 3; seq++) loop.enqueue([entry(seq)]);
    await loop.flush();
    await loop.publishedAll();
    expect(published).toEqual([2, 3]);
    expect(problems).toEqual(['the report failed']);
  });

  it('never waits for a projector process apart: a flush returns at once, its reports move the position and publish', async () => {
    const projector = new SlowProjector();
    const { loop, published } = loopOf(projector);
    const told: number[] = [];
    let stopped = false;
    loop.useThread({
      apart: true,
      position: 0,
      advance: (through) => told.push(through),
      waitUntil: () => false,
      stop: () => {
        stopped = true;
        return Promise.resolve();
      },
    });
    loop.enqueue([entry(1), entry(2)]);
    loop.enqueue([entry(3)]);
    await loop.flush();
    loop.flushNow();
    expect([loop.position, projector.written, told]).toEqual([0, [], [2, 3]]);
    const reader = loop.waitFor(3, 5_000);
    loop.projectedBy(2, 2);
    expect(loop.position).toBe(2);
    loop.projectedBy(3, 1);
    expect(await reader).toBe(true);
    await loop.publishedAll();
    expect(published).toEqual([1, 2, 3]);
    await loop.stop();
    expect(stopped).toBe(true);
  });

  it('publishes a group whose position a projector following the journal reported before the group was handed over', async () => {
    // A projector process reads the journal itself, so its report can come before this process hands the group over.
    const { loop, published } = loopOf(new SlowProjector());
    loop.useThread({ apart: true, position: 0, advance: () => {}, waitUntil: () => false, stop: () => Promise.resolve() });
    loop.enqueue([entry(1)]);
    loop.projectedBy(3, 3);
    loop.enqueue([entry(2)]);
    loop.enqueue([entry(3)]);
    loop.enqueue([entry(4)]);
    await loop.publishedAll();
    expect([loop.position, published]).toEqual([3, [1, 2, 3]]);
    loop.projectedBy(4, 1);
    await loop.publishedAll();
    expect(published).toEqual([1, 2, 3, 4]);
  });

  it('refuses a blocking flush, which cannot wait for a database server', () => {
    const { loop } = loopOf(new SlowProjector());
    loop.enqueue([entry(1)]);
    expect(() => loop.flushNow()).toThrow('flush()');
  });

  it('hands over to the projector thread when the embedded projector cannot write at that moment (a full disk)', async () => {
    const full = new Error('SQLITE_FULL: database or disk is full');
    const refusing: BatchProjector = {
      project: () => {
        throw full;
      },
    };
    const problems: unknown[] = [];
    const published: number[] = [];
    const loop = new ProjectionLoop(refusing, 0, {
      prepareFanOut: async (entries) => () => published.push(...entries.map((e) => e.seq)),
      onProblem: (err) => problems.push(err),
      publicationsLost: (err) => problems.push(err),
      retryMs: 5,
    });
    loop.enqueue([entry(1), entry(2)]);
    const told: number[] = [];
    const thread = { position: 0, advance: (through: number) => told.push(through), waitUntil: () => false, stop: () => Promise.resolve() };
    expect(() => loop.useThread(thread)).not.toThrow();
    expect(problems).toEqual([full]);
    expect([loop.projectorThread, told]).toEqual([thread, [2]]);
    // The thread projects from the read models' checkpoint and reports: the groups are published.
    loop.projectedBy(2, 2);
    await loop.publishedAll();
    expect([loop.position, published]).toEqual([2, [1, 2]]);
  });
});

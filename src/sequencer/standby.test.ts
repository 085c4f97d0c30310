// The standby's follower against an in-memory journal: it rebuilds from the newest snapshot, applies rows as they are
// appended, passes over a refused command as replay does, reads to the journal's end once it holds the lock, and
// hands on the replies of journaled gateway requests within the window.
import { describe, expect, it } from 'vitest';
import { Engine, type EngineSnapshot } from '../engine/engine.js';
import type { Command } from '../engine/types.js';
import type { JournaledCommand, StoredSnapshot } from '../store/ports.js';
import { defaultEngineParams } from '../../test/helpers/engine-params.js';
import { standBy, type JournalSource } from './standby.js';
import { resultOfRepeat } from './nats/command-server.js';

const TOKEN = '0x00000000000000000000000000000000000000C1';
const A = '0x00000000000000000000000000000000000000A1';
const B = '0x00000000000000000000000000000000000000B1';
const params = defaultEngineParams(TOKEN);
const NOW = 1_000_000;

class MemoryJournal implements JournalSource {
  rows: JournaledCommand[] = [];
  snapshots: StoredSnapshot<EngineSnapshot>[] = [];
  append(cmd: Command): number {
    this.rows.push({ seq: this.rows.length + 1, cmd });
    return this.rows.length;
  }
  archivedThrough(): number {
    return 0;
  }
  async *validSnapshots(): AsyncGenerator<StoredSnapshot<EngineSnapshot>> {
    yield* [...this.snapshots].reverse();
  }
  async *commandsAfter(afterSeq: number): AsyncGenerator<JournaledCommand[]> {
    const rows = this.rows.filter((r) => r.seq > afterSeq);
    if (rows.length > 0) yield rows;
  }
}

const faucet = (address: string, amount: bigint, at = NOW, requestId?: string): Command => ({
  kind: 'faucet',
  at,
  address,
  amount,
  ...(requestId ? { requestId } : {}),
});

const logged: string[] = [];
const log = { info: (_: object, msg: string) => void logged.push(msg), warn: (_: object, msg: string) => void logged.push(msg) };

describe('standBy', () => {
  it('follows the journal from the newest snapshot, then takes over at its end with the replies of journaled requests', async () => {
    const journal = new MemoryJournal();
    const writer = new Engine(params);
    for (const cmd of [faucet(A, 100n), faucet(B, 50n)]) {
      writer.apply(cmd);
      journal.append(cmd);
    }
    journal.snapshots.push({ seq: 2, state: writer.snapshot() });
    journal.append(faucet(A, 1n, NOW - 120_000, 'too-old'));
    let release!: () => void;
    const lock = new Promise<void>((resolve) => (release = resolve));
    const taking = standBy({
      journal,
      createEngine: (snap) => (snap ? Engine.restore(params, snap) : new Engine(params)),
      takeOver: async () => {
        await lock;
        return { epoch: '7', close: () => Promise.resolve() };
      },
      now: () => NOW,
      log,
      remember: { ms: 60_000, max: 2 },
      pollMs: 5,
    });
    // Appended while it stands by: a refused transfer (more than B holds) and requests from a gateway.
    await new Promise((r) => setTimeout(r, 20));
    journal.append({ kind: 'transfer', at: NOW, from: B, to: A, amount: 1000n });
    journal.append(faucet(B, 5n, NOW, 'req-1'));
    await new Promise((r) => setTimeout(r, 20));
    journal.append(faucet(B, 6n, NOW, 'req-2'));
    journal.append(faucet(A, 7n, NOW, 'req-3'));
    release();
    const { writer: taken, warm, replies } = await taking;
    expect(taken.epoch).toBe('7');
    expect(warm.seq).toBe(7);
    expect(warm.snapshotSeq).toBe(2);
    expect(warm.engine.balances(A).balance).toBe(108n);
    expect(warm.engine.balances(B).balance).toBe(61n);
    // At most `max`, the newest; none older than the window.
    expect(replies.map((r) => [r.requestId, r.position, r.result])).toEqual([
      ['req-2', 6, { kind: 'none' }],
      ['req-3', 7, { kind: 'none' }],
    ]);
    expect(logged).toContain('standing by: following the journal at position 3');
    expect(logged).toContain('took over as the writer at position 7, epoch 7');
  });

  it('stops following and fails when taking over fails', async () => {
    const journal = new MemoryJournal();
    journal.append(faucet(A, 1n));
    await expect(
      standBy({
        journal,
        createEngine: () => new Engine(params),
        takeOver: () => Promise.reject(new Error('no database')),
        now: () => NOW,
        log,
        remember: { ms: 60_000, max: 10 },
      }),
    ).rejects.toThrow('no database');
  });
});

describe('resultOfRepeat', () => {
  it('answers a repeated post with every order of the request: those the journal lacks were posted before it', () => {
    const order = (orderHash: string) => ({ orderHash }) as Extract<Command, { kind: 'postOrders' }>['orders'][number];
    const requested: Command = { kind: 'postOrders', at: NOW, orders: [order('0x1'), order('0x2'), order('0x3')], markets: [] };
    const journaled = { kind: 'postOrders' as const, statuses: [{ orderHash: '0x2', status: 'OK' as const }, { orderHash: '0x3', status: 'INSUFFICIENT_BALANCE' as const }] };
    expect(resultOfRepeat(requested, journaled)).toEqual({
      kind: 'postOrders',
      statuses: [
        { orderHash: '0x1', status: 'ORDERS_ALREADY_EXIST' },
        { orderHash: '0x2', status: 'OK' },
        { orderHash: '0x3', status: 'INSUFFICIENT_BALANCE' },
      ],
    });
    expect(resultOfRepeat(faucet(A, 1n), { kind: 'none' })).toEqual({ kind: 'none' });
  });
});

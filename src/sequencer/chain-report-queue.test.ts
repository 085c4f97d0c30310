// The chain's reports to the sequencer of the same process: kept and tried again while the journal refuses commands,
// in the chain's order; other refusals dropped (logged); the local ledger's bare confirmations never held up.
import { describe, expect, it } from 'vitest';
import { DomainError } from '../engine/errors.js';
import type { Command } from '../engine/types.js';
import { ChainReportQueue } from './chain-report-queue.js';

const range = (fromBlock: number): Command => ({ kind: 'chainEvents', at: 1, fromBlock, toBlock: fromBlock + 4, entries: [] });
const confirm = (fillHash: string): Command => ({ kind: 'confirmFill', at: 1, fillHash });
const nameOf = (c: Command) => (c.kind === 'chainEvents' ? `range ${c.fromBlock}` : c.kind === 'confirmFill' ? c.fillHash : c.kind);
const until = async (done: () => boolean) => {
  for (let i = 0; i < 200 && !done(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(done()).toBe(true);
};

describe('chain reports to the journal', () => {
  it('tries a range the journal refused again until it is taken, and the next range only after it', async () => {
    const tries: string[] = [];
    const taken: string[] = [];
    let refusals = 3;
    const errors: string[] = [];
    const queue = new ChainReportQueue({
      submit: async (cmd) => {
        tries.push(nameOf(cmd));
        if (cmd.kind === 'chainEvents' && cmd.fromBlock === 1 && refusals-- > 0) throw new DomainError(refusals % 2 ? 'STORAGE_UNAVAILABLE' : 'STORAGE_FAILED');
        taken.push(nameOf(cmd));
      },
      log: { warn: () => {}, error: (_o, msg) => errors.push(msg) },
      retryMs: { first: 1, max: 4 },
    });
    queue.run(range(1), 'first');
    queue.run(range(6), 'second');
    queue.run(confirm('0xf'), 'a bare confirmation');
    await until(() => taken.length === 3);
    // The confirmation commutes: it went at once, ahead of the ranges.
    expect(taken).toEqual(['0xf', 'range 1', 'range 6']);
    expect(tries.filter((t) => t === 'range 1')).toHaveLength(4);
    expect(errors).toEqual([]);
  });

  it('drops (and logs) a report refused for another reason; a range applied already is taken as such', async () => {
    const errors: string[] = [];
    const tries: string[] = [];
    const queue = new ChainReportQueue({
      submit: async (cmd) => {
        tries.push(nameOf(cmd));
        if (cmd.kind === 'chainEvents') throw new DomainError(cmd.fromBlock === 1 ? 'CHAIN_EVENTS_ALREADY_APPLIED' : 'MARKET_NOT_TRADEABLE');
      },
      log: { warn: () => {}, error: (_o, msg) => errors.push(msg) },
      retryMs: { first: 1, max: 4 },
    });
    queue.run(range(1), 'blocks 1-5');
    queue.run(range(6), 'blocks 6-10');
    queue.run(range(11), 'blocks 11-15');
    await until(() => tries.length === 3);
    expect(tries).toEqual(['range 1', 'range 6', 'range 11']);
    expect(errors).toEqual(['blocks 6-10 not recorded; the chain reports it again after a restart', 'blocks 11-15 not recorded; the chain reports it again after a restart']);
  });

  it('stops trying once stopped', async () => {
    let tries = 0;
    const queue = new ChainReportQueue({
      submit: async () => {
        tries++;
        throw new DomainError('STORAGE_UNAVAILABLE');
      },
      log: { warn: () => {}, error: () => {} },
      retryMs: { first: 20, max: 20 },
    });
    queue.run(range(1), 'first');
    await until(() => tries === 1);
    queue.stop();
    await new Promise((r) => setTimeout(r, 80));
    expect(tries).toBe(1);
  });
});

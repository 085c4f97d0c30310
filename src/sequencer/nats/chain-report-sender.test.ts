// A settlement process's chain reports to the sequencer over NATS, against a stand-in sequencer on the chain-report
// subject: ordered reports one at a time, the local ledger's bare confirmations at once, each repeated with its
// request id until answered; a block range refused as overlapping one applied stops the sender, the reports queued
// behind it unsent.
import { describe, expect, it } from 'vitest';
import { natsClientForSuite } from '../../../test/helpers/nats.js';
import { DomainError } from '../../engine/errors.js';
import type { Command } from '../../engine/types.js';
import { ChainReportSender } from './chain-report-sender.js';
import { CHAIN_REPORT_SUBJECT, decodeRequest, encodeReply, replyOfError, type CommandRequest } from './wire.js';

const silent = { warn: () => {}, error: () => {} };
const bounds = { attemptTimeoutMs: 150, retryForMs: 400 };
const confirm = (fillHash: string): Command => ({ kind: 'confirmFill', at: 1, fillHash });
const attempt = (txHash: string): Command => ({ kind: 'fillAttempt', at: 1, fillHashes: ['0xf'], txHash });
/** What a report names: a confirmation's fill, an attempt's transaction, a range's blocks. */
const nameOf = (r: CommandRequest) =>
  r.command.kind === 'confirmFill' ? r.command.fillHash : r.command.kind === 'fillAttempt' ? r.command.txHash : r.command.kind;
const range = (fromBlock: number, toBlock: number): Command => ({ kind: 'chainEvents', at: 1, fromBlock, toBlock, entries: [] });

describe('chain reports sent to the sequencer over NATS', () => {
  const suite = natsClientForSuite();

  /** A stand-in sequencer: records every request, and answers it as `answer` says (undefined: no reply). */
  const sequencer = (answer: (req: CommandRequest) => string | undefined) => {
    const seen: CommandRequest[] = [];
    const answered: CommandRequest[] = [];
    const sub = suite.nc().subscribe(CHAIN_REPORT_SUBJECT, {
      queue: CHAIN_REPORT_SUBJECT,
      callback: (_err, msg) => {
        const req = decodeRequest(msg.string());
        seen.push(req);
        const reply = answer(req);
        if (reply === undefined) return;
        answered.push(req);
        msg.respond(reply);
      },
    });
    return { seen, answered, stop: () => sub.unsubscribe() };
  };
  const ok = encodeReply({ ok: true, result: { kind: 'none' }, position: 1 });

  it('sends ordered reports in order, repeating an unanswered one with the same request id (past its retry bound too)', async () => {
    // The first attempts of the first report get no reply (a sequencer being replaced), for longer than one retry bound.
    const started = Date.now();
    const s = sequencer((req) => (nameOf(req) === '0xa' && Date.now() - started < 600 ? undefined : ok));
    const sender = new ChainReportSender(suite.nats().url, bounds, silent, () => {
      throw new Error('not out of step');
    });
    try {
      await Promise.all([sender.send(attempt('0xa'), 'a'), sender.send(attempt('0xb'), 'b')]);
      const names = s.seen.map(nameOf);
      const first = s.seen.filter((_, i) => names[i] === '0xa');
      expect(first.length).toBeGreaterThan(2);
      // Every attempt of one report carries one id; the second report went once, after the first was answered.
      expect(new Set(first.map((r) => r.id)).size).toBe(1);
      expect(names.slice(first.length)).toEqual(['0xb']);
      // Not given up at the bound: taken once a sequencer answered.
      expect(s.answered.map(nameOf)).toEqual(['0xa', '0xb']);
    } finally {
      s.stop();
      await sender.close();
    }
  });

  it("sends the local ledger's confirmations at once: one unanswered holds up no other", async () => {
    const started = Date.now();
    const s = sequencer((req) => (nameOf(req) === '0xa' && Date.now() - started < 300 ? undefined : ok));
    const sender = new ChainReportSender(suite.nats().url, bounds, silent, () => {});
    try {
      await Promise.all([sender.send(confirm('0xa'), 'a'), sender.send(confirm('0xb'), 'b')]);
      expect(s.answered.map(nameOf)).toEqual(['0xb', '0xa']);
    } finally {
      s.stop();
      await sender.close();
    }
  });

  it('keeps a report the journal refuses while its store is down, and sends it again under a new id until it is taken', async () => {
    // The sequencer's store refuses the first two attempts (a database restarting); the next range waits its turn.
    let refusals = 2;
    const s = sequencer((req) =>
      nameOf(req) === 'chainEvents' && req.command.kind === 'chainEvents' && req.command.fromBlock === 1 && refusals-- > 0
        ? encodeReply(replyOfError(new DomainError('STORAGE_UNAVAILABLE')))
        : ok,
    );
    const sender = new ChainReportSender(suite.nats().url, bounds, silent, () => {
      throw new Error('not out of step');
    });
    try {
      await Promise.all([sender.send(range(1, 5), 'first'), sender.send(range(6, 9), 'second')]);
      const blocks = s.seen.map((r) => (r.command.kind === 'chainEvents' ? r.command.fromBlock : -1));
      expect(blocks).toEqual([1, 1, 1, 6]);
      // The sequencer remembers a reply by request id: each attempt after a refusal is a new request.
      expect(new Set(s.seen.slice(0, 3).map((r) => r.id)).size).toBe(3);
    } finally {
      s.stop();
      await sender.close();
    }
  });

  it('stops at a block range refused as already applied: out of step once, the reports behind it never sent', async () => {
    const s = sequencer((req) => (req.command.kind === 'chainEvents' ? encodeReply(replyOfError(new DomainError('CHAIN_EVENTS_ALREADY_APPLIED'))) : ok));
    let outOfStep = 0;
    const sender = new ChainReportSender(suite.nats().url, bounds, silent, () => outOfStep++);
    try {
      await Promise.all([sender.send(range(5, 9), 'range'), sender.send(attempt('0xc'), 'c'), sender.send(range(10, 12), 'next range')]);
      await sender.send(confirm('0xd'), 'd');
      expect(outOfStep).toBe(1);
      expect(s.seen.map((r) => r.command.kind)).toEqual(['chainEvents']);
    } finally {
      s.stop();
      await sender.close();
    }
  });
});

// Which commands the sequencer's NATS end takes on which subject: clients' commands (through gateways) on the command
// subject only, a settlement process's chain reports on the chain-report subject only, and no chain reports at all
// where the sequencer's process runs the chain itself.
import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { natsClientForSuite } from '../../../test/helpers/nats.js';
import type { Command } from '../../engine/types.js';
import { serveCommands, type CommandServer } from './command-server.js';
import { CHAIN_REPORT_SUBJECT, COMMAND_SUBJECT, decodeReply, encodeRequest, type CommandReply } from './wire.js';

const silent = { error: () => {}, warn: () => {}, info: () => {} };
const catalogue = { getMarket: () => undefined, isClosedInPlay: () => false };
const confirm: Command = { kind: 'confirmFill', at: 1, fillHash: '0xf1' };
const faucet: Command = { kind: 'faucet', at: 1, address: '0x0000000000000000000000000000000000000001', amount: 5n };

describe('the sequencer answering commands and chain reports over NATS', () => {
  const suite = natsClientForSuite();

  /** A server in front of a stand-in sequencer that takes every command it is given. */
  const serve = async (chainReports: boolean) => {
    const applied: Command['kind'][] = [];
    const sequencer = { submit: (cmd: Command) => (applied.push(cmd.kind), Promise.resolve({ kind: 'none' }) as never), acknowledged: () => applied.length };
    const server: CommandServer = serveCommands(suite.nats().url, sequencer, catalogue, silent, [], chainReports);
    // Subscribed once a request on the command subject is answered.
    for (let i = 0; i < 100; i++) {
      if (await ask(COMMAND_SUBJECT, { kind: 'expire', at: 1 }).then(() => true, () => false)) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    applied.length = 0;
    return { applied, server };
  };
  const ask = async (subject: string, command: Command): Promise<CommandReply> =>
    decodeReply((await suite.nc().request(subject, encodeRequest({ id: randomUUID(), command }), { timeout: 1000 })).string());

  it('takes chain reports on their own subject only, and nothing else there', async () => {
    const { applied, server } = await serve(true);
    try {
      expect(await ask(COMMAND_SUBJECT, confirm)).toMatchObject({ ok: false, failure: expect.stringMatching(/a confirmFill command is not taken on oddex\.sequencer\.commands/) });
      expect(await ask(CHAIN_REPORT_SUBJECT, faucet)).toMatchObject({ ok: false, failure: expect.stringMatching(/a faucet command is not taken on oddex\.sequencer\.chain/) });
      expect(applied).toEqual([]);
      expect(await ask(CHAIN_REPORT_SUBJECT, confirm)).toMatchObject({ ok: true });
      expect(await ask(COMMAND_SUBJECT, faucet)).toMatchObject({ ok: true });
      expect(applied).toEqual(['confirmFill', 'faucet']);
    } finally {
      await server.close();
    }
  });

  it('takes no chain report where the sequencer runs the chain itself', async () => {
    const { applied, server } = await serve(false);
    try {
      await expect(ask(CHAIN_REPORT_SUBJECT, confirm)).rejects.toThrow(/503|no responders/i);
      expect(applied).toEqual([]);
    } finally {
      await server.close();
    }
  });
});

// The sequencer's end of the NATS command transport: it answers the command subject in a queue group (one member
// answers each request; a hot standby will join the same group), applies each command through the sequencer and
// replies with the result and the journal position it is durable at. Requests are taken in arrival order, so one
// gateway connection's commands reach the sequencer in the order it sent them.
//
// A gateway repeats a request whose reply it did not get (a timeout, a takeover) with the same id: a repeat that
// arrives while the first is in flight or soon after gets the first one's reply rather than a second application.
// The engine refuses a repeated order hash, fill salt or cancel salt anyway; this only keeps the answer the same.
import { connect, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import type { FastifyBaseLogger } from 'fastify';
import type { Catalogue } from '../../catalogue/catalogue.js';
import type { SequencerPort } from '../port.js';
import { withCurrentMarkets } from '../current-markets.js';
import { COMMAND_SUBJECT, decodeRequest, encodeReply, replyOfError } from './wire.js';

/** Replies kept for repeats, newest last: well beyond the requests a gateway repeats within its retry bound. */
const REMEMBERED_REPLIES = 20_000;

export interface CommandServer {
  close(): Promise<void>;
}

export async function serveCommands(
  url: string,
  sequencer: Pick<SequencerPort, 'submit' | 'acknowledged'>,
  catalogue: Pick<Catalogue, 'getMarket' | 'isClosedInPlay'>,
  log: Pick<FastifyBaseLogger, 'error' | 'warn' | 'info'>,
): Promise<CommandServer> {
  const nc: NatsConnection = await connect({ servers: url, name: 'oddex-sequencer', maxReconnectAttempts: -1, reconnectTimeWait: 250 });
  const replies = new Map<string, Promise<string>>();
  const answer = async (text: string): Promise<string> => {
    try {
      const { command } = decodeRequest(text);
      const result = await sequencer.submit(withCurrentMarkets(command, catalogue));
      return encodeReply({ ok: true, result, position: sequencer.acknowledged() });
    } catch (err) {
      return encodeReply(replyOfError(err));
    }
  };
  const sub: Subscription = nc.subscribe(COMMAND_SUBJECT, {
    queue: COMMAND_SUBJECT,
    callback: (err, msg) => {
      if (err) {
        log.error({ err }, 'NATS command subscription failed');
        return;
      }
      const text = msg.string();
      let id: string;
      try {
        id = (JSON.parse(text) as { id: string }).id;
      } catch (e) {
        msg.respond(encodeReply(replyOfError(e)));
        return;
      }
      let reply = typeof id === 'string' ? replies.get(id) : undefined;
      if (!reply) {
        reply = answer(text);
        if (typeof id === 'string') {
          replies.set(id, reply);
          if (replies.size > REMEMBERED_REPLIES) replies.delete(replies.keys().next().value!);
        }
      }
      reply.then(
        (r) => msg.respond(r),
        (e: unknown) => log.error({ err: e }, 'a command reply could not be sent'),
      );
    },
  });
  void (async () => {
    for await (const s of nc.status()) if (s.type === 'disconnect' || s.type === 'reconnect') log.warn({ nats: s.type }, `NATS ${s.type}`);
  })();
  log.info({ subject: COMMAND_SUBJECT }, 'answering commands over NATS');
  return {
    close: async () => {
      sub.unsubscribe();
      await nc.drain().catch(() => nc.close());
    },
  };
}

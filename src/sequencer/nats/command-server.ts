// The sequencer's end of the NATS command transport: it answers the command subject in a queue group (one member
// answers each request; a hot standby subscribes only once it has taken the writer's lock), applies each command
// through the sequencer and replies with the result and the journal position it is durable at. Requests are taken
// in arrival order, so one gateway connection's commands reach the sequencer in the order it sent them.
//
// A gateway repeats a request whose reply it did not get (a timeout, a takeover) with the same id: a repeat that
// arrives while the first is in flight or within a minute of it gets the first one's reply rather than a second
// application. The engine refuses a repeated order hash, fill salt or cancel salt anyway; this keeps the answer the
// same, and covers commands without such a key (a faucet grant). The request id is journaled with the command, so a
// sequencer that took over (standby.ts) answers a repeat of a request its predecessor journaled, but never replied
// to, with the result the journal gives it, at the command's position. A settlement process's chain reports come the
// same way on a subject of their own (wire.ts CHAIN_REPORT_SUBJECT), the only one that takes them.
import { connect, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import type { FastifyBaseLogger } from 'fastify';
import type { Catalogue } from '../../catalogue/catalogue.js';
import type { Command, CommandResult } from '../../engine/types.js';
import type { JournaledReply } from '../standby.js';
import type { SequencerPort } from '../port.js';
import { withCurrentMarkets } from '../current-markets.js';
import { CHAIN_REPORT_KINDS, CHAIN_REPORT_SUBJECT, COMMAND_SUBJECT, POSITION_SUBJECT, decodeRequest, encodeReply, replyOfError, type CommandRequest } from './wire.js';

/** How long, and for how many requests at most, a reply is kept for repeats: well beyond a gateway's retry bound. */
export const REMEMBERED_REPLIES = { ms: 60_000, max: 10_000 };

/**
 * A journaled request's result as its reply: a post lists every order of the request, while the journal holds only
 * those not posted before (the sequencer answered the others ORDERS_ALREADY_EXIST without journaling them).
 */
export function resultOfRepeat(requested: Command, result: CommandResult): CommandResult {
  if (requested.kind !== 'postOrders' || result.kind !== 'postOrders') return result;
  const journaled = new Map(result.statuses.map((s) => [s.orderHash, s]));
  return {
    kind: 'postOrders',
    statuses: requested.orders.map((o) => journaled.get(o.orderHash) ?? { orderHash: o.orderHash, status: 'ORDERS_ALREADY_EXIST' as const }),
  };
}

export interface CommandServer {
  close(): Promise<void>;
}

/**
 * Answers commands once NATS is reached (in the background: a sequencer started before NATS, or while it is down,
 * trades on its own API meanwhile).
 */
export function serveCommands(
  url: string,
  sequencer: Pick<SequencerPort, 'submit' | 'acknowledged'>,
  catalogue: Pick<Catalogue, 'getMarket' | 'isClosedInPlay'>,
  log: Pick<FastifyBaseLogger, 'error' | 'warn' | 'info'>,
  /** Requests the previous writer journaled (a standby that took over): their repeats get these results. */
  journaled: readonly JournaledReply[] = [],
  /** Whether a settlement process reports the chain here: not where this process runs the chain itself. */
  chainReports = true,
): CommandServer {
  /** Replies by request id, oldest first. */
  const replies = new Map<string, { at: number; reply: Promise<string> }>();
  const fromJournal = new Map(journaled.map((j) => [j.requestId, j]));
  // Past the window no repeat is answered from them: not kept for the process's life.
  if (fromJournal.size > 0) setTimeout(() => fromJournal.clear(), REMEMBERED_REPLIES.ms).unref();
  const inFlight = new Set<Promise<unknown>>();
  const answer = async (req: CommandRequest): Promise<string> => {
    const before = fromJournal.get(req.id);
    if (before) {
      fromJournal.delete(req.id);
      if (Date.now() - before.cmd.at < REMEMBERED_REPLIES.ms) {
        log.info({ requestId: req.id, position: before.position }, 'a repeated request answered with the result the previous writer journaled');
        return encodeReply({ ok: true, result: resultOfRepeat(req.command, before.result), position: before.position });
      }
    }
    try {
      // The request's id goes into the journal with the command (see above).
      const result = await sequencer.submit(withCurrentMarkets({ ...req.command, requestId: req.id }, catalogue));
      return encodeReply({ ok: true, result, position: sequencer.acknowledged() });
    } catch (err) {
      return encodeReply(replyOfError(err));
    }
  };
  const remembered = (req: CommandRequest): Promise<string> => {
    const now = Date.now();
    for (const [id, r] of replies) {
      if (now - r.at < REMEMBERED_REPLIES.ms && replies.size < REMEMBERED_REPLIES.max) break;
      replies.delete(id);
    }
    const known = replies.get(req.id);
    if (known) return known.reply;
    // Called now, in arrival order: the sequencer takes commands in the order they came.
    const reply = answer(req);
    replies.set(req.id, { at: now, reply });
    return reply;
  };
  /** Gateways' commands on one subject, a settlement process's chain reports on the other: neither takes the other's. */
  const subscribe = (nc: NatsConnection, subject: string, chainReports: boolean): Subscription => nc.subscribe(subject, {
    queue: subject,
    callback: (err, msg) => {
      if (err) {
        log.error({ err, subject }, 'NATS command subscription failed');
        return;
      }
      let req: CommandRequest;
      try {
        req = decodeRequest(msg.string());
        if (CHAIN_REPORT_KINDS.includes(req.command.kind) !== chainReports) {
          throw new Error(`a ${req.command.kind} command is not taken on ${subject}: chain reports come on ${CHAIN_REPORT_SUBJECT} only`);
        }
      } catch (e) {
        msg.respond(encodeReply(replyOfError(e)));
        return;
      }
      const sent = remembered(req)
        .then((r) => msg.respond(r))
        .catch((e: unknown) => log.error({ err: e }, 'a command reply could not be sent; the gateway repeats the request'));
      inFlight.add(sent);
      void sent.finally(() => inFlight.delete(sent));
    },
  });
  /** Gateways ask before an account's read: every reply sent so far carried a position at or below this one. */
  const answerPositions = (nc: NatsConnection): Subscription =>
    nc.subscribe(POSITION_SUBJECT, {
      queue: POSITION_SUBJECT,
      callback: (_err, msg) => {
        msg.respond(JSON.stringify({ position: sequencer.acknowledged() }));
      },
    });
  let closed = false;
  let served: { nc: NatsConnection; subs: Subscription[] } | undefined;
  connect({ servers: url, name: 'oddex-sequencer', maxReconnectAttempts: -1, reconnectTimeWait: 250, waitOnFirstConnect: true }).then(
    (nc) => {
      if (closed) return void nc.close();
      served = { nc, subs: [subscribe(nc, COMMAND_SUBJECT, false), answerPositions(nc), ...(chainReports ? [subscribe(nc, CHAIN_REPORT_SUBJECT, true)] : [])] };
      log.info({ subject: COMMAND_SUBJECT, ...(chainReports ? { chainReports: CHAIN_REPORT_SUBJECT } : {}) }, 'answering commands over NATS');
      void (async () => {
        for await (const s of nc.status()) if (s.type === 'disconnect' || s.type === 'reconnect') log.warn({ nats: s.type }, `NATS ${s.type}`);
      })();
    },
    (err: unknown) => log.error({ err }, 'NATS connection failed: no commands from gateways'),
  );
  let closing: Promise<void> | undefined;
  return {
    // Once, however often called (a superseded writer steps out, then shuts down).
    close: () =>
      (closing ??= (async () => {
        closed = true;
        if (!served) return;
        const { nc, subs } = served;
        // Nothing new is taken; what was taken is answered before the connection goes.
        for (const sub of subs) sub.unsubscribe();
        await Promise.allSettled([...inFlight]);
        await nc.drain().catch(() => nc.close());
      })()),
  };
}

// What travels between a gateway and the sequencer over NATS, as text. The command is encoded by the journal's own
// command codec (bigints included), so the sequencer decodes exactly what a journal row would hold; results and
// errors, which hold bigints too, by the journal's tagged JSON. A refusal travels as its errorCode, message and
// details and is thrown again on the gateway as the same error, so its HTTP answer is the one given in process.
import type { Command, ResultOf } from '../../engine/types.js';
import { DOMAIN_ERROR_CODES, DomainError, type DomainErrorCode } from '../../engine/errors.js';
import { ERRORS, ExchangeError, type ErrorCode, type ErrorDetail } from '../../protocol/errors.js';
import { decodeCommand, encodeCommand } from '../../store/command-codec.js';
import { decodeJson, encodeJson } from '../../store/json-codec.js';

/** The subject the sequencer answers commands on, in the queue group of the same name. */
export const COMMAND_SUBJECT = 'oddex.sequencer.commands';

/**
 * The subject a settlement process reports what the chain did on (requests as on COMMAND_SUBJECT), in the queue group
 * of the same name. Only chain reports are taken on it, and never on COMMAND_SUBJECT: what a gateway sends for a
 * client can never be a chain report, whatever a client sends it.
 */
export const CHAIN_REPORT_SUBJECT = 'oddex.sequencer.chain';

/** The commands that report what the settlement chain did (a settlement process's ChainSink). */
export const CHAIN_REPORT_KINDS: readonly Command['kind'][] = ['confirmFill', 'fillAttempt', 'chainEvents'];

/**
 * The subject a gateway forwards the HTTP requests it cannot answer on (a ForwardedRequest as JSON, answered by a
 * ForwardedReply as JSON), in the queue group of the same name.
 */
export const FORWARD_SUBJECT = 'oddex.sequencer.forwarded';

/**
 * The subject the sequencer answers with the journal position it has acknowledged writes through (`{"position": n}`),
 * in the queue group of the same name: a gateway asks it before an account's read, so the read waits for writes the
 * account made on other gateways too.
 */
export const POSITION_SUBJECT = 'oddex.sequencer.position';

/** A command request: `id` is the gateway's, the same on every retry of one command. */
export interface CommandRequest {
  id: string;
  command: Command;
}

/** The sequencer's reply: the result and the journal position it is durable at, or why it was refused. */
export type CommandReply =
  | { ok: true; result: unknown; position: number }
  | { ok: false; errorCode: ErrorCode; message: string; details?: ErrorDetail[] }
  /** Anything that is not a catalogued refusal (a bug, a dropped database connection): its message and code. */
  | { ok: false; failure: string; code?: string };

export function encodeRequest(req: CommandRequest): string {
  return JSON.stringify({ id: req.id, command: encodeCommand(req.command) });
}

export function decodeRequest(text: string): CommandRequest {
  const raw = JSON.parse(text) as { id?: unknown; command?: unknown };
  if (typeof raw.id !== 'string' || typeof raw.command !== 'string') throw new Error('command request without id or command');
  return { id: raw.id, command: decodeCommand(raw.command) };
}

export const encodeReply = (reply: CommandReply): string => encodeJson(reply);

export const decodeReply = (text: string): CommandReply => decodeJson<CommandReply>(text);

/** A refusal or failure as the reply carries it. */
export function replyOfError(err: unknown): CommandReply {
  if (err instanceof ExchangeError) {
    return { ok: false, errorCode: err.errorCode, message: err.message, ...(err.details ? { details: err.details } : {}) };
  }
  const e = err instanceof Error ? err : new Error(String(err));
  const code = (e as NodeJS.ErrnoException).code;
  return { ok: false, failure: e.message, ...(typeof code === 'string' ? { code } : {}) };
}

/** The result of a reply, or its error thrown as the sequencer threw it. */
export function resultOfReply<C extends Command>(reply: CommandReply): ResultOf<C> {
  if (reply.ok) return reply.result as ResultOf<C>;
  if ('failure' in reply) {
    const err = new Error(reply.failure) as NodeJS.ErrnoException;
    if (reply.code !== undefined) err.code = reply.code;
    throw err;
  }
  if (!(reply.errorCode in ERRORS)) throw new Error(`the sequencer answered an unknown errorCode ${String(reply.errorCode)}: ${reply.message}`);
  if ((DOMAIN_ERROR_CODES as readonly string[]).includes(reply.errorCode)) throw new DomainError(reply.errorCode as DomainErrorCode, reply.message);
  throw new ExchangeError(reply.errorCode, reply.message, reply.details);
}

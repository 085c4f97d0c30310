// Centrifuge client protocol v2, JSON flavour: codes, message shapes and the line codec.
// Field names follow the protocol's public schema (client.proto of centrifugal/protocol).

/** Error codes of replies (`{id, error:{code, message, temporary?}}`). */
export const ErrorCode = {
  unauthorized: 101,
  unknownChannel: 102,
  permissionDenied: 103,
  alreadySubscribed: 105,
  limitExceeded: 106,
  badRequest: 107,
  notAvailable: 108,
  tokenExpired: 109,
  tooManyRequests: 111,
  unrecoverablePosition: 112,
} as const;

/** WebSocket close codes: 3000-3499 make the client reconnect, 3500-3999 are terminal. */
export const CloseCode = {
  shutdown: 3001,
  expired: 3005,
  slowConsumer: 3008,
  /** This node missed publications of a subscribed channel: reconnect and recover them from history. */
  insufficientState: 3010,
  noPong: 3012,
  /** The client went on sending commands well past its command rate after being answered 111 (Centrifuge's code). */
  tooManyRequests: 3013,
  invalidToken: 3500,
  badRequest: 3501,
} as const;

export interface ProtocolError {
  code: number;
  message: string;
  temporary?: boolean;
}

export interface StreamPosition {
  offset: number;
  epoch: string;
}

export interface ConnectRequest {
  token?: string;
}
export interface RefreshRequest {
  token?: string;
}
export interface SubscribeRequest {
  channel?: string;
  recover?: boolean;
  epoch?: string;
  offset?: number;
  type?: number;
  flag?: number;
}
export interface UnsubscribeRequest {
  channel?: string;
}
export interface HistoryRequest {
  channel?: string;
  limit?: number;
  since?: Partial<StreamPosition>;
  reverse?: boolean;
}

/** One client command; at most one method field is set. A command with no method field is a pong. */
export interface Command {
  id?: number;
  connect?: ConnectRequest;
  subscribe?: SubscribeRequest;
  unsubscribe?: UnsubscribeRequest;
  publish?: unknown;
  presence?: unknown;
  presence_stats?: unknown;
  history?: HistoryRequest;
  rpc?: unknown;
  refresh?: RefreshRequest;
  sub_refresh?: unknown;
  send?: unknown;
}

export const METHODS = [
  'connect',
  'subscribe',
  'unsubscribe',
  'publish',
  'presence',
  'presence_stats',
  'history',
  'rpc',
  'refresh',
  'sub_refresh',
  'send',
] as const;
export type Method = (typeof METHODS)[number];

/** The method a command carries, 'pong' for the empty command, undefined for garbage. */
export function methodOf(cmd: Command): Method | 'pong' | undefined {
  let found: Method | undefined;
  for (const m of METHODS) {
    if (cmd[m] === undefined || cmd[m] === null) continue;
    if (found) return undefined; // two methods in one command
    found = m;
  }
  if (found) return found;
  return cmd.id === undefined || cmd.id === 0 ? 'pong' : undefined;
}

/** Splits one text frame into commands; throws on anything that is not a JSON object per line. */
export function decodeCommands(frame: string): Command[] {
  const out: Command[] = [];
  for (const line of frame.split('\n')) {
    if (line.trim() === '') continue;
    const parsed: unknown = JSON.parse(line);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('command is not an object');
    const id = (parsed as Command).id;
    if (id !== undefined && (!Number.isInteger(id) || id < 0)) throw new Error('command id is not a positive integer');
    out.push(parsed as Command);
  }
  return out;
}

export const encodeReply = (id: number, method: Method, result: unknown): string =>
  JSON.stringify({ id, [method]: result });

export const encodeError = (id: number, error: ProtocolError): string => JSON.stringify({ id, error });

/** The push frame of one publication; built once and sent as-is to every subscriber. */
export const encodePublicationPush = (channel: string, pubJson: string): string =>
  `{"push":{"channel":${JSON.stringify(channel)},"pub":${pubJson}}}`;

/** Server ping (the payload; see ws-frame.ts); the client answers with the same empty object when `pong` was announced. */
export const PING = '{}';

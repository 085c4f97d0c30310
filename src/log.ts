// The process's logger: JSON lines for log shippers, a short readable form for a person at a terminal.
import { Writable } from 'node:stream';
import pino from 'pino';
import pretty from 'pino-pretty';
import type { LogFormat } from './config.js';

export function resolveLogFormat(format: LogFormat, isTerminal: boolean): 'json' | 'pretty' {
  return format === 'auto' ? (isTerminal ? 'pretty' : 'json') : format;
}

export interface Loggers {
  log: pino.Logger;
  /** The HTTP layer's logger (requests, the listen line). */
  http: pino.Logger;
  format: 'json' | 'pretty';
}

/**
 * In the readable form a request is a debug line: demo liquidity alone makes dozens a second, and a person must still
 * see the page's address and every warning. JSON lines keep every request at info, as log pipelines expect.
 */
export function createLoggers(level: string, format: 'json' | 'pretty', destination: pino.DestinationStream = process.stdout): Loggers {
  const hooks = { logMethod: repeatsCounted(REPEAT_WINDOW_MS) };
  if (format === 'json') {
    const log = pino({ level, hooks }, destination);
    return { log, http: log, format };
  }
  const stream = pretty({ destination: asWritable(destination), sync: true, singleLine: true, translateTime: 'HH:MM:ss', ignore: 'pid,hostname', colorize: isColorTerminal(destination) });
  const log = pino({ level, hooks }, stream);
  // At info, requests and the listen line (info lines of the HTTP layer) are left out; debug shows them.
  return { log, http: log.child({}, { level: level === 'info' ? 'warn' : level }), format };
}

/** pino-pretty writes to a Node stream; a destination may be any object with `write` (tests collect lines). */
const asWritable = (destination: pino.DestinationStream): Writable =>
  destination instanceof Writable ? destination : new Writable({ write: (chunk: Buffer, _encoding, done) => (destination.write(chunk.toString()), done()) });

const isColorTerminal = (destination: pino.DestinationStream) => destination === process.stdout && process.stdout.isTTY === true;

/** How long a warning or error logged once is not logged again when repeated identically, only counted. */
const REPEAT_WINDOW_MS = 60_000;

type LogMethod = (this: pino.Logger, ...args: unknown[]) => void;

/**
 * What makes two log lines the same: their logger's bindings (a child's module), level, message and fields (an error
 * by its type, code and message).
 */
function repeatKey(bindings: object, level: number, args: readonly unknown[]): string {
  const fields = (value: unknown): unknown => {
    if (value instanceof Error) return `${value.name}: ${(value as { code?: unknown }).code ?? ''} ${value.message}`;
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, v instanceof Error ? fields(v) : v]));
  };
  try {
    return `${level} ${JSON.stringify([bindings, ...args.map(fields)], (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}`;
  } catch {
    return `${level} ${String(args[args.length - 1])}`; // circular fields: the message alone
  }
}

/**
 * pino's logMethod hook that keeps a failure repeated in a loop (a full disk: a projector retrying every 100 ms, a
 * checkpoint thread, an expiry sweep) from flooding the log: a warning or error is logged the first time; the same
 * line again within `windowMs` is only counted, and the count is logged once the window ends (the line with
 * `repeated: N`). Lines below warn (requests) are never held back.
 */
export function repeatsCounted(windowMs: number): (this: pino.Logger, args: unknown[], method: LogMethod, level: number) => void {
  const windows = new Map<string, { count: number; last: unknown[] }>();
  return function (this: pino.Logger, args, method, level) {
    if (level < 40) return method.apply(this, args);
    const key = repeatKey(this.bindings(), level, args);
    const open = windows.get(key);
    if (open) {
      open.count++;
      open.last = args;
      return;
    }
    const window = { count: 0, last: args };
    windows.set(key, window);
    const countLater = (logger: pino.Logger) =>
      setTimeout(() => {
        windows.delete(key);
        if (window.count > 0) method.apply(logger, withCount(window.last, window.count, windowMs));
      }, windowMs).unref();
    countLater(this);
    method.apply(this, args);
  };
}

/** The arguments of a repeated line, counted: `repeated` among its fields and in its message. */
function withCount(args: readonly unknown[], count: number, windowMs: number): unknown[] {
  const note = `(repeated ${count} more ${count === 1 ? 'time' : 'times'} in ${Math.round(windowMs / 1000)} s)`;
  const [first, ...rest] = args;
  if (typeof first === 'string') return [{ repeated: count }, `${first} ${note}`, ...rest];
  const fields = first instanceof Error ? { err: first, repeated: count } : { ...(first as object), repeated: count };
  const [msg, ...more] = rest;
  return [fields, typeof msg === 'string' ? `${msg} ${note}` : note, ...more];
}

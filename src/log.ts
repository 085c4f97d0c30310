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
  if (format === 'json') {
    const log = pino({ level }, destination);
    return { log, http: log, format };
  }
  const stream = pretty({ destination: asWritable(destination), sync: true, singleLine: true, translateTime: 'HH:MM:ss', ignore: 'pid,hostname', colorize: isColorTerminal(destination) });
  const log = pino({ level }, stream);
  // At info, requests and the listen line (info lines of the HTTP layer) are left out; debug shows them.
  return { log, http: log.child({}, { level: level === 'info' ? 'warn' : level }), format };
}

/** pino-pretty writes to a Node stream; a destination may be any object with `write` (tests collect lines). */
const asWritable = (destination: pino.DestinationStream): Writable =>
  destination instanceof Writable ? destination : new Writable({ write: (chunk: Buffer, _encoding, done) => (destination.write(chunk.toString()), done()) });

const isColorTerminal = (destination: pino.DestinationStream) => destination === process.stdout && process.stdout.isTTY === true;

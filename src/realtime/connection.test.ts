// What one connection writes for publications that were joined into one fan-out: the joined frames in one write
// when it can take them all, else each publication on its own, exactly as if they had never been joined.
import { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { defaultConfig } from '../config.js';
import { MemoryBroker } from './broker.js';
import { orderBookMarketChannel } from './channels.js';
import { ClientConnection } from './connection.js';
import { encodePublicationPush } from './protocol.js';
import type { RealtimeTokens } from './tokens.js';
import { framePayload, textFrame } from './ws-frame.js';

const MARKET = '0x' + 'ab'.repeat(32);
const CHANNEL = orderBookMarketChannel(MARKET);
const ADDRESS = '0x00000000000000000000000000000000000000A1';
const pub = (n: number) => `{"data":"p${n}","offset":${n}}`;
const frameOf = (channel: string, n: number) => textFrame(encodePublicationPush(channel, pub(n)));

/** A connection over a socket that records its writes, its client subscribed to `spelling`; resolves once subscribed. */
async function subscribedClient(broker: MemoryBroker, spelling: string) {
  const ws = Object.assign(new EventEmitter(), { readyState: WebSocket.OPEN, close: () => {} });
  const writes: Buffer[] = [];
  const socket = { writableLength: 0, write: (b: Buffer) => writes.push(b), on: () => socket };
  const tokens = { verify: async () => ({ ok: true, address: ADDRESS, keyId: 'k', exp: 3600 }) } as unknown as RealtimeTokens;
  const silent = { debug: () => {}, error: () => {} } as never;
  const deps = { broker, tokens, config: defaultConfig().realtime, now: () => 0, log: silent, version: 't', onClosed: () => {} };
  const conn = new ClientConnection(ws as unknown as WebSocket, socket as unknown as Duplex, deps);
  ws.emit('message', Buffer.from(`{"id":1,"connect":{"token":"t"}}\n{"id":2,"subscribe":{"channel":"${spelling}"}}`), false);
  // Microtasks only: no event-loop turn passes, so queued fan-outs stay where they are.
  for (let i = 0; i < 50 && !writes.some((w) => framePayload(w).includes('"id":2')); i++) await Promise.resolve();
  const reply = JSON.parse(framePayload(writes.at(-1)!).toString()) as { subscribe: { offset: number } };
  writes.length = 0;
  return { conn, writes, offset: reply.subscribe.offset };
}

/** A broker whose fan-out of publication 1 is still under way behind 100 other subscribers, so later ones queue. */
async function busyBroker() {
  const broker = new MemoryBroker({ size: () => 100, ttlMs: 60_000 }, () => 0, undefined, undefined, 0);
  for (let i = 0; i < 100; i++) await broker.subscribe(CHANNEL, () => {});
  broker.publishNow(CHANNEL, 'p1');
  return broker;
}

const drain = async (broker: MemoryBroker) => {
  while (broker.fanoutsPending > 0) await new Promise((resolve) => setImmediate(resolve));
};

describe('ClientConnection and joined publications', () => {
  it('writes publications joined behind a busy fan-out in one write, the frames back to back', async () => {
    const broker = await busyBroker();
    const { writes, offset } = await subscribedClient(broker, CHANNEL);
    expect(offset).toBe(1);
    for (let n = 2; n <= 4; n++) broker.publishNow(CHANNEL, `p${n}`);
    await drain(broker);
    expect(writes).toEqual([Buffer.concat([2, 3, 4].map((n) => frameOf(CHANNEL, n)))]);
  });

  it('writes only what its subscribe reply did not cover, one publication at a time', async () => {
    const broker = await busyBroker();
    broker.publishNow(CHANNEL, 'p2'); // queued: the subscribe reply below covers it
    const { writes, offset } = await subscribedClient(broker, CHANNEL);
    expect(offset).toBe(2);
    broker.publishNow(CHANNEL, 'p3'); // joins 2
    broker.publishNow(CHANNEL, 'p4');
    await drain(broker);
    expect(writes).toEqual([frameOf(CHANNEL, 3), frameOf(CHANNEL, 4)]);
  });

  it('frames each joined publication under the channel name the client used', async () => {
    const broker = await busyBroker();
    const spelling = `order_book:market_${MARKET.toUpperCase().replace('0X', '0x')}`;
    const { writes } = await subscribedClient(broker, spelling);
    broker.publishNow(CHANNEL, 'p2');
    broker.publishNow(CHANNEL, 'p3');
    await drain(broker);
    expect(writes).toEqual([frameOf(spelling, 2), frameOf(spelling, 3)]);
  });
});

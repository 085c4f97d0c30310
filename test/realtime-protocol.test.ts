// Protocol-level behaviour with a raw WebSocket client: exact reply shapes, error codes and close codes.
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { decodeJwt } from 'jose';
import { startTestExchange, type TestExchange } from './helpers/server.js';
import { RawClient, createApiKey, fetchToken, rawConnected, sleep, waitFor, wsUrl } from './helpers/realtime.js';
import { defaultConfig, type RealtimeConfig } from '../src/config.js';
import { getSetting } from '../src/store/sqlite/db.js';
import { RealtimeTokens } from '../src/realtime/tokens.js';
import { emitAny } from './helpers/bus.js';

const MAKER = '0x8ba1f109551bd432803012645ac136ddd64dba72';
const MAKER_CHECKSUMMED = '0x8ba1f109551bD432803012645Ac136ddd64DBA72';
const hash = (n: number) => '0x' + n.toString(16).padStart(64, '0');

const exchanges: TestExchange[] = [];
const clients: RawClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  for (const ex of exchanges.splice(0)) await ex.destroy();
});

async function setup(realtime: Partial<RealtimeConfig> = {}, overrides: Parameters<typeof startTestExchange>[0] = {}) {
  const ex = await startTestExchange({ ...overrides, realtime: { ...defaultConfig().realtime, ...realtime } });
  exchanges.push(ex);
  const apiKey = await createApiKey(ex, MAKER);
  const token = await fetchToken(ex, apiKey);
  const open = async () => {
    const c = await RawClient.open(wsUrl(ex));
    clients.push(c);
    return c;
  };
  const connect = async () => {
    const c = await rawConnected(wsUrl(ex), token);
    clients.push(c);
    return c;
  };
  return { ex, apiKey, token, open, connect };
}

describe('GET /user/realtime-token/api-key', () => {
  it('returns a bare {token}: HS256 JWT with sub = checksummed key address and exp = iat + ttl', async () => {
    const { ex, apiKey } = await setup({}, { realtimeTokenTtlSeconds: 600 });
    const res = await ex.get('/user/realtime-token/api-key', { 'x-api-key': apiKey });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['token']);
    const claims = decodeJwt(res.body.token);
    expect(claims.sub).toBe(MAKER_CHECKSUMMED);
    expect(claims.exp! - claims.iat!).toBe(600);
    const header = JSON.parse(Buffer.from(res.body.token.split('.')[0], 'base64url').toString());
    expect(header.alg).toBe('HS256');
    // Signed with the secret stored once in settings.
    const secret = getSetting(ex.ctx.db!, 'realtime.jwtSecret')!;
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    const check = await new RealtimeTokens(Buffer.from(secret, 'hex'), 600, Date.now, () => true).verify(res.body.token);
    expect(check).toEqual({ ok: true, address: MAKER_CHECKSUMMED, keyId: claims.key, exp: claims.exp });
    expect(claims.key).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('rejects a missing or unknown API key with 401', async () => {
    const { ex } = await setup();
    const missing = await ex.get('/user/realtime-token/api-key');
    expect(missing.status).toBe(401);
    expect(missing.body.errorCode).toBe('MISSING_API_KEY');
    const unknown = await ex.get('/user/realtime-token/api-key', { 'x-api-key': 'nope' });
    expect(unknown.status).toBe(401);
    expect(unknown.body.errorCode).toBe('INVALID_API_KEY');
  });
});

describe('WebSocket subprotocol', () => {
  /** What the handshake settles when the client offers `protocols`: the subprotocol agreed on, or the failure. */
  async function handshake(url: string, protocols: string[]): Promise<string> {
    const ws = new WebSocket(url, protocols);
    try {
      return await new Promise<string>((resolve) => {
        ws.on('open', () => resolve(`open: '${ws.protocol}'`));
        ws.on('error', (e) => resolve(`error: ${e.message}`));
      });
    } finally {
      ws.terminate();
    }
  }

  it('agrees to centrifuge-json or to none, never to a protocol it does not speak (centrifuge-protobuf)', async () => {
    const { ex } = await setup();
    expect(await handshake(wsUrl(ex), [])).toBe("open: ''");
    expect(await handshake(wsUrl(ex), ['centrifuge-json'])).toBe("open: 'centrifuge-json'");
    expect(await handshake(wsUrl(ex), ['centrifuge-protobuf', 'centrifuge-json'])).toBe("open: 'centrifuge-json'");
    // A protobuf client (centrifuge-js with protocol: 'protobuf') is told at the handshake, not by a 3501 after connect.
    expect(await handshake(wsUrl(ex), ['centrifuge-protobuf'])).toBe('error: Server sent no subprotocol');
  });
});

describe('connect', () => {
  it('answers connect with {client, version, ping, pong, expires, ttl}', async () => {
    const { open, token } = await setup({}, { realtimeTokenTtlSeconds: 3600 });
    const c = await open();
    const reply = await c.call({ connect: { token } });
    expect(Object.keys(reply.connect).sort()).toEqual(['client', 'expires', 'ping', 'pong', 'ttl', 'version']);
    expect(reply.connect).toMatchObject({ ping: 25, pong: true, expires: true, version: 'oddex-1' });
    expect(reply.connect.client).toMatch(/^[0-9a-f-]{36}$/);
    expect(reply.connect.ttl).toBeGreaterThanOrEqual(3598);
    expect(reply.connect.ttl).toBeLessThanOrEqual(3600);
  });

  it('missing token: error 101; forged token: close 3500; command before connect or garbage: close 3501', async () => {
    const { open, token } = await setup();
    const a = await open();
    expect(await a.call({ connect: {} })).toEqual({ id: 1, error: { code: 101, message: 'unauthorized' } });

    const b = await open();
    const [h, p] = token.split('.');
    b.send({ connect: { token: `${h}.${p}.${'A'.repeat(43)}` } });
    expect(await b.closed()).toBe(3500);
    expect(b.closeReason).toBe('invalid token');

    const c = await open();
    c.send({ subscribe: { channel: 'markets:global' } });
    expect(await c.closed()).toBe(3501);

    const d = await open();
    d.ws.send('{not json');
    expect(await d.closed()).toBe(3501);
  });

  it('refresh with a new token extends the connection', async () => {
    const { connect, apiKey, ex } = await setup({}, { realtimeTokenTtlSeconds: 100 });
    const c = await connect();
    const fresh = await fetchToken(ex, apiKey);
    const reply = await c.call({ refresh: { token: fresh } });
    expect(reply.refresh).toMatchObject({ expires: true, version: 'oddex-1' });
    expect(reply.refresh.ttl).toBeGreaterThanOrEqual(98);
    expect(reply.refresh.client).toBe(c.messages[0].connect.client);
  });

  it('revoking a key ends its live sessions at once and refuses its tokens, refresh, heartbeat and new tokens', async () => {
    const { ex, token: otherToken, apiKey: otherKey } = await setup();
    const created = await ex.admin('POST', '/admin/api-keys', { address: MAKER });
    const { id, apiKey } = created.body.data as { id: string; apiKey: string };
    const token = await fetchToken(ex, apiKey);
    const spare = await fetchToken(ex, apiKey);
    const live = await rawConnected(wsUrl(ex), token);
    const refreshing = await rawConnected(wsUrl(ex), token);
    const sameAddressOtherKey = await rawConnected(wsUrl(ex), otherToken);
    clients.push(live, refreshing, sameAddressOtherKey);

    expect((await ex.admin('DELETE', `/admin/api-keys/${id}`)).status).toBe(200);
    expect(await live.closed()).toBe(3500);
    expect(live.closeReason).toBe('api key revoked');
    expect(await refreshing.closed()).toBe(3500);
    expect(sameAddressOtherKey.closeCode).toBeUndefined();
    // A token issued before the revocation no longer connects or refreshes.
    const late = await RawClient.open(wsUrl(ex));
    clients.push(late);
    late.send({ connect: { token: spare } });
    expect([await late.closed(), late.closeReason]).toEqual([3500, 'revoked token']);
    sameAddressOtherKey.send({ refresh: { token: spare } });
    expect([await sameAddressOtherKey.closed(), sameAddressOtherKey.closeReason]).toEqual([3500, 'revoked token']);
    // The HTTP calls made with the key answer 401.
    const tokenCall = await ex.get('/user/realtime-token/api-key', { 'x-api-key': apiKey });
    const heartbeat = await ex.post('/heartbeat', { requestor: MAKER, timeoutSeconds: 30 }, { 'x-api-key': apiKey });
    expect([tokenCall.status, tokenCall.body.errorCode, heartbeat.status, heartbeat.body.errorCode]).toEqual([
      401,
      'INVALID_API_KEY',
      401,
      'INVALID_API_KEY',
    ]);
    expect((await ex.get('/user/realtime-token/api-key', { 'x-api-key': otherKey })).status).toBe(200);
  });

  it('closes with 3012 when pings go unanswered, and keeps a client that answers', async () => {
    const { connect } = await setup({ pingIntervalMs: 150, pongTimeoutMs: 150 });
    const silent = await connect();
    silent.answerPings = false;
    const polite = await connect();
    expect(await silent.closed(3000)).toBe(3012);
    expect(silent.closeReason).toBe('no pong');
    await sleep(300);
    expect(polite.closeCode).toBeUndefined();
    expect(polite.messages.filter((m) => Object.keys(m).length === 0).length).toBeGreaterThanOrEqual(2);
  });
});

describe('subscribe', () => {
  it('processes the lines of one frame in order and answers each id with the exact subscribe result', async () => {
    const { open, token, ex } = await setup();
    const c = await open();
    const ids = c.send(
      { connect: { token } },
      { subscribe: { channel: 'markets:global', recoverable: true, positioned: true } },
      { subscribe: { channel: 'best_odds:global' } },
    );
    const replies = await Promise.all(ids.map((id) => c.reply(id)));
    expect(c.messages.slice(0, 3).map((m) => m.id)).toEqual(ids);
    // Each channel's stream has its own epoch, within the server start's.
    const epoch = replies[1].subscribe.epoch as string;
    expect(epoch.startsWith(`${ex.ctx.realtime!.broker.epoch}-`)).toBe(true);
    expect(replies[1]).toEqual({
      id: ids[1],
      subscribe: { recoverable: true, positioned: true, epoch, offset: 0, was_recovering: false, recovered: false, publications: [] },
    });
    // No history for best_odds: neither recoverable nor positioned.
    expect(replies[2].subscribe).toMatchObject({ recoverable: false, positioned: false });

    emitAny(ex.ctx.bus, 'markets', [{ marketHash: hash(1), status: 'ACTIVE' }]);
    const push = await waitFor(() => c.pushes('markets:global')[0]);
    expect(push).toEqual({ push: { channel: 'markets:global', pub: { data: [{ marketHash: hash(1), status: 'ACTIVE' }], offset: 1 } } });
  });

  it('105 for a duplicate subscribe, 107 without a channel, 102 for a bad parameter', async () => {
    const { connect } = await setup();
    const c = await connect();
    expect((await c.call({ subscribe: { channel: `order_book:market_${hash(1)}` } })).subscribe).toBeDefined();
    // Another spelling of the same channel is the same channel.
    expect(await c.call({ subscribe: { channel: `order_book:market_${hash(1).toUpperCase().replace('0X', '0x')}` } })).toMatchObject({
      error: { code: 105, message: 'already subscribed' },
    });
    expect((await c.call({ subscribe: {} })).error).toEqual({ code: 107, message: 'bad request' });
    expect((await c.call({ subscribe: { channel: 'order_book:event_' } })).error.code).toBe(102);
    expect((await c.call({ subscribe: { channel: 'active_orders:0x12' } })).error.code).toBe(102);
    expect((await c.call({ subscribe: { channel: 'ce_refunds:nope' } })).error.code).toBe(102);
    expect((await c.call({ publish: { channel: 'markets:global', data: {} } })).error.code).toBe(103);
  });

  it('106 for the 513th channel of a connection', async () => {
    const { connect } = await setup();
    const c = await connect();
    const ids = c.send(...Array.from({ length: 513 }, (_, i) => ({ subscribe: { channel: `order_book:market_${hash(i + 1)}` } })));
    const replies = await Promise.all(ids.map((id) => c.reply(id)));
    expect(replies.slice(0, 512).every((r) => r.subscribe && !r.error)).toBe(true);
    expect(replies[512].error).toEqual({ code: 106, message: 'limit exceeded' });
    // Unsubscribing frees a slot.
    expect(await c.call({ unsubscribe: { channel: `order_book:market_${hash(1)}` } })).toMatchObject({ unsubscribe: {} });
    expect((await c.call({ subscribe: { channel: `order_book:market_${hash(9999)}` } })).subscribe).toBeDefined();
  });

  it('recover:true returns exactly the missed publications with the requested offset, or 112 when asked to reject', async () => {
    const { connect, ex } = await setup();
    const channel = `order_book:market_${hash(5)}`;
    const orders = (n: number) => ({ marketHash: hash(5), exchangeEventId: 'e1', orders: [{ orderHash: hash(n), maker: MAKER_CHECKSUMMED }] });
    // A subscriber that saw publication 1, then left: the channel stays recorded while nobody is subscribed.
    const before = await connect();
    const { epoch } = (await before.call({ subscribe: { channel } })).subscribe as { epoch: string };
    emitAny(ex.ctx.bus, 'orders', orders(1));
    await waitFor(() => before.pushes(channel)[0]);
    expect(await before.call({ unsubscribe: { channel } })).toMatchObject({ unsubscribe: {} });
    for (let n = 2; n <= 3; n++) emitAny(ex.ctx.bus, 'orders', orders(n));
    const c = await connect();
    const r = await c.call({ subscribe: { channel, recover: true, offset: 1, epoch } });
    expect(r.subscribe).toEqual({
      recoverable: true,
      positioned: true,
      epoch,
      offset: 1,
      was_recovering: true,
      recovered: true,
      publications: [
        { data: [{ orderHash: hash(2), maker: MAKER_CHECKSUMMED }], offset: 2 },
        { data: [{ orderHash: hash(3), maker: MAKER_CHECKSUMMED }], offset: 3 },
      ],
    });
    const c2 = await connect();
    const wrongEpoch = await c2.call({ subscribe: { channel, recover: true, offset: 1, epoch: 'other' } });
    expect(wrongEpoch.subscribe).toMatchObject({ offset: 3, epoch, was_recovering: true, recovered: false, publications: [] });
    const c3 = await connect();
    const reject = await c3.call({ subscribe: { channel, recover: true, offset: 1, epoch: 'other', flag: 3 } });
    expect(reject.error).toEqual({ code: 112, message: 'unrecoverable position' });
  });
});

describe('history', () => {
  it('serves history on channels that keep it, 108 on those that do not, 112 for another epoch', async () => {
    const { connect, ex } = await setup();
    const c = await connect();
    // Before anyone subscribed, nothing is recorded, and the position given recovers nothing.
    emitAny(ex.ctx.bus, 'trades', [{ fillHash: hash(9) }]);
    const unrecorded = (await c.call({ history: { channel: 'recent_trades:global', limit: -1 } })).history;
    expect(unrecorded).toEqual({ publications: [], epoch: `${ex.ctx.realtime!.broker.epoch}-0`, offset: 0 });
    expect((await c.call({ history: { channel: 'recent_trades:global', since: { offset: 0, epoch: unrecorded.epoch } } })).error.code).toBe(112);
    const { epoch } = (await c.call({ subscribe: { channel: 'recent_trades:global' } })).subscribe as { epoch: string };
    for (let i = 1; i <= 3; i++) emitAny(ex.ctx.bus, 'trades', [{ fillHash: hash(i) }]);
    const all = await c.call({ history: { channel: 'recent_trades:global', limit: -1 } });
    expect(all.history).toEqual({
      // One trade object per publication on the trade channels.
      publications: [1, 2, 3].map((i) => ({ data: { fillHash: hash(i) }, offset: i })),
      epoch,
      offset: 3,
    });
    const since = await c.call({ history: { channel: 'recent_trades:global', limit: 10, since: { offset: 2, epoch } } });
    expect(since.history.publications).toEqual([{ data: { fillHash: hash(3) }, offset: 3 }]);
    const positionOnly = await c.call({ history: { channel: 'recent_trades:global' } });
    expect(positionOnly.history).toEqual({ publications: [], epoch, offset: 3 });
    expect((await c.call({ history: { channel: 'best_odds:global', limit: -1 } })).error.code).toBe(108);
    expect((await c.call({ history: { channel: 'recent_trades:global', limit: -1, since: { offset: 1, epoch: 'x' } } })).error.code).toBe(112);
    expect((await c.call({ history: { channel: 'active_orders:0x1111111111111111111111111111111111111111' } })).error.code).toBe(103);
    expect((await c.call({ history: { channel: 'ce_refunds:0x1111111111111111111111111111111111111111' } })).error.code).toBe(103);
  });
});

describe('limits', () => {
  it('111 (temporary) when a connection exceeds its command rate', async () => {
    const { connect } = await setup({ commandBurst: 3, commandsPerSecond: 1 });
    const c = await connect();
    const ids = c.send(...Array.from({ length: 5 }, () => ({ history: { channel: 'markets:global' } })));
    const replies = await Promise.all(ids.map((id) => c.reply(id)));
    expect(replies.map((r) => r.error?.code ?? 'ok')).toEqual(['ok', 'ok', 'ok', 111, 111]);
    expect(replies[3].error).toEqual({ code: 111, message: 'too many requests', temporary: true });
  });

  it('drops a slow consumer with 3008 without slowing the others', async () => {
    const { connect, ex } = await setup();
    const channel = `order_book:market_${hash(7)}`;
    const slow = await connect();
    const fast = await connect();
    await slow.call({ subscribe: { channel } });
    await fast.call({ subscribe: { channel } });
    // The slow client stops reading: its bytes pile up in the kernel, then in the server's buffer.
    (slow.ws as unknown as { _socket: { pause(): void } })._socket.pause();
    // Each publication within the largest one the server sends (a quarter of the 1 MiB queue).
    const big = 'x'.repeat(128 * 1024);
    const count = 160; // 20 MiB: more than the loopback socket buffers hold
    for (let i = 0; i < count; i++) {
      emitAny(ex.ctx.bus, 'orders', { marketHash: hash(7), exchangeEventId: 'e', orders: [{ orderHash: hash(i), big }] });
      await sleep(1);
    }
    await waitFor(() => fast.pushes(channel).length === count, 10_000, 'fast client');
    expect(fast.pushes(channel).map((m) => m.push.pub.offset)).toEqual(Array.from({ length: count }, (_, i) => i + 1));
    expect(ex.ctx.realtime!.connectionCount).toBe(1);
    (slow.ws as unknown as { _socket: { resume(): void } })._socket.resume();
    expect(await slow.closed(10_000)).toBe(3008);
    expect(slow.closeReason).toBe('slow consumer');
    expect(slow.pushes(channel).length).toBeLessThan(count);
  });
});

describe('a connection flooding commands', () => {
  it('is answered 111 for a burst past its rate, then closed with 3013; other clients are answered', async () => {
    const { connect } = await setup({ commandBurst: 3, commandsPerSecond: 1 });
    const c = await connect();
    const other = await connect();
    const ids = c.send(...Array.from({ length: 10 }, () => ({ history: { channel: 'markets:global' } })));
    const replies = await Promise.all(ids.slice(0, 6).map((id) => c.reply(id)));
    expect(replies.map((r) => r.error?.code ?? 'ok')).toEqual(['ok', 'ok', 'ok', 111, 111, 111]);
    expect(await c.closed()).toBe(3013);
    expect(c.closeReason).toBe('too many requests');
    expect((await other.call({ history: { channel: 'markets:global' } })).error).toBeUndefined();
  });

  it('frames of thousands of commands: cut off after a burst of 111s instead of answering every one (default limits)', async () => {
    const { ex, connect } = await setup();
    const c = await connect();
    let id = 1000;
    const frame = () => Array.from({ length: 10_000 }, () => JSON.stringify({ id: ++id, subscribe: { channel: 'x' } })).join('\n');
    for (let i = 0; i < 10; i++) c.ws.send(frame());
    expect(await c.closed(10_000)).toBe(3013);
    // At most the burst answered and a burst of 111s: not the 100,000 replies the frames asked for.
    expect(c.messages.length).toBeLessThan(5000);
    const res = await ex.get('/health/live');
    expect(res.status).toBe(200);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from 'node:net';
import { startTestExchange, type TestExchange } from './helpers/server.js';

describe('service basics', () => {
  let ex: TestExchange;
  beforeAll(async () => {
    ex = await startTestExchange();
  });
  afterAll(async () => ex.destroy());

  it('answers liveness and readiness', async () => {
    expect(await ex.get('/health/live')).toMatchObject({ status: 200, body: { status: 'success', data: { live: true } } });
    // The path every role process answers.
    expect(await ex.get('/health')).toMatchObject({ status: 200, body: { status: 'success', data: { live: true } } });
    expect(await ex.get('/health/ready')).toMatchObject({ status: 200, body: { status: 'success', data: { ready: true } } });
  });

  it('answers unknown routes with a JSON 404 in the failure envelope', async () => {
    const res = await ex.get('/no/such/route?x=1');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ status: 'failure', errorCode: 'NOT_FOUND', message: 'no route GET /no/such/route' });
  });

  it('exposes Prometheus metrics with request latency and engine gauges', async () => {
    await ex.get('/health/live');
    await ex.get('/no/such/route');
    const res = await fetch(ex.url + '/metrics');
    expect(res.headers.get('content-type')).toContain('text/plain');
    const text = await res.text();
    expect(text).toMatch(/oddex_http_request_duration_seconds_count\{method="GET",route="\/health\/live",status="200"\} [1-9]/);
    expect(text).toMatch(/oddex_http_rejections_total\{route="unmatched",status="404"\} [1-9]/);
    expect(text).toContain('oddex_open_orders 0');
    expect(text).toContain('oddex_realtime_connections 0');
  });

  it('serves the OpenAPI document and the docs page', async () => {
    const spec = await ex.get('/openapi.json');
    expect(spec.status).toBe(200);
    expect(spec.body.openapi).toMatch(/^3\./);
    expect(Object.keys(spec.body.paths)).toContain('/health/ready');
    const docs = await fetch(ex.url + '/docs/');
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('<html');
  });
});

describe('a clean stop', () => {
  it('sheds requests that arrive while it closes with 503 NOT_READY in the envelope, and finishes those already running', async () => {
    const ex = await startTestExchange();
    try {
      // One keep-alive connection: an account read that waits its whole bound for a position the journal has not
      // reached is running when the stop begins; a second request follows it on the same connection.
      const socket = connect(ex.port, '127.0.0.1');
      let received = '';
      socket.on('data', (d) => (received += d));
      const ended = new Promise((r) => socket.once('close', r));
      socket.write(`GET /orders?maker=0x${'1'.repeat(40)} HTTP/1.1\r\nHost: x\r\nOddex-Min-Position: 999999999\r\n\r\n`);
      await new Promise((r) => setTimeout(r, 100));
      const closed = ex.close();
      await new Promise((r) => setTimeout(r, 50));
      socket.write('GET /metadata HTTP/1.1\r\nHost: x\r\n\r\n');
      await ended;
      await closed;
      const [first, second] = received.split(/(?=HTTP\/1\.1 )/);
      expect(first).toMatch(/^HTTP\/1\.1 503 [^]*"errorCode":"READ_MODEL_BEHIND"/);
      expect(second).toMatch(/^HTTP\/1\.1 503 /);
      expect(second).toMatch(/\r\nconnection: close\r\n/i);
      expect(second).toMatch(/\r\nretry-after: 1\r\n/i);
      expect(JSON.parse(second!.slice(second!.indexOf('\r\n\r\n') + 4))).toEqual({
        status: 'failure',
        errorCode: 'NOT_READY',
        message: 'the exchange is shutting down: retry on another server, or here once it is back',
      });
    } finally {
      await ex.destroy();
    }
  });
});

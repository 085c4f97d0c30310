// The exchange serves the built web page at `/` without shadowing the API, and a wallet can sign in for a
// realtime token (POST /user/realtime-token/wallet). Signatures by viem.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Subscription } from 'centrifuge';
import { startTestExchange, type TestExchange } from './helpers/server.js';
import { newWallet } from './helpers/wallets.js';
import { centrifugeClient, waitFor, wsUrl } from './helpers/realtime.js';
import Fastify from 'fastify';
import { installEnvelope } from '../src/api/envelope.js';
import { registerWebPage } from '../src/api/web-page.js';
import { ensureWebBuild } from './helpers/browser.js';

const signInText = (address: string, timestamp: number) => `Oddex realtime sign-in\naddress: ${address}\ntimestamp: ${timestamp}`;

let ex: TestExchange;
beforeAll(async () => {
  ensureWebBuild();
  ex = await startTestExchange();
}, 60_000);
afterAll(async () => ex?.destroy());

describe('the web page at /', () => {
  it('serves the page and its assets, and leaves the API, docs, metrics, health and unknown paths alone', async () => {
    const page = await fetch(`${ex.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('cache-control')).toBe('no-cache');
    const html = await page.text();
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${ex.url}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await asset.text()).length).toBeGreaterThan(1000); // read to the end: an unread body holds the socket

    expect((await ex.get('/metadata')).body.status).toBe('success');
    expect((await ex.get('/health/live')).status).toBe(200);
    const metrics = await fetch(`${ex.url}/metrics`);
    expect([metrics.status, (await metrics.text()).includes('# HELP')]).toEqual([200, true]);
    const docs = await fetch(`${ex.url}/docs/`);
    expect([docs.headers.get('content-type'), await docs.text()]).toEqual([expect.stringMatching(/^text\/html/), expect.stringContaining('<html')]);
    const unknown = await ex.get('/assets/missing.js');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ status: 'failure', errorCode: 'NOT_FOUND', message: 'no route GET /assets/missing.js' });
    expect((await ex.get('/connection/websocket')).status).toBe(404);
  });

  it("serves only the page's paths: /, /index.html and the files under assets/, nothing else and nothing outside", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'oddex-web-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>t</title>');
    writeFileSync(join(dir, 'assets', 'a.js'), 'export {}');
    writeFileSync(join(dir, 'other.txt'), 'not the page');
    const app = Fastify();
    installEnvelope(app);
    try {
      await registerWebPage(app, dir);
      await app.ready();
      expect((await app.inject('/')).body).toBe('<!doctype html><title>t</title>');
      expect((await app.inject('/index.html')).body).toBe('<!doctype html><title>t</title>');
      expect((await app.inject('/assets/a.js')).statusCode).toBe(200);
      expect((await app.inject('/assets/b.js')).statusCode).toBe(404);
      expect((await app.inject('/assets/')).statusCode).toBe(404);
      expect((await app.inject('/other.txt')).statusCode).toBe(404);
      expect((await app.inject('/../package.json')).statusCode).toBe(404);
      expect((await app.inject('/index.html/..%2f..%2fetc%2fpasswd')).statusCode).toBe(404);
      // Out of assets/ by an encoded or literal dot-dot: refused, never the file.
      for (const escape of ['/assets/..%2findex.html', '/assets/..%2fother.txt', '/assets/%2e%2e/other.txt', '/assets/..%2f..%2f..%2fetc%2fpasswd']) {
        const res = await app.inject(escape);
        expect([escape, res.statusCode >= 400, res.body]).toEqual([escape, true, expect.not.stringMatching(/not the page|<title>t<|root:/)]);
      }
    } finally {
      await app.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('serves a rebuild made while it runs: the new page and its newly named assets, the old assets no more', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'oddex-web-'));
    const build = (name: string, body: string) => {
      rmSync(join(dir, 'assets'), { recursive: true, force: true });
      mkdirSync(join(dir, 'assets'));
      writeFileSync(join(dir, 'assets', name), body);
      writeFileSync(join(dir, 'index.html'), `<script src="/assets/${name}"></script>`);
    };
    build('index-old.js', 'old');
    const app = Fastify();
    installEnvelope(app);
    try {
      await registerWebPage(app, dir);
      await app.ready();
      expect((await app.inject('/assets/index-old.js')).body).toBe('old');
      build('index-new.js', 'new');
      const page = await app.inject('/');
      expect([page.body, page.headers['cache-control']]).toEqual(['<script src="/assets/index-new.js"></script>', 'no-cache']);
      const asset = await app.inject('/assets/index-new.js');
      expect([asset.statusCode, asset.body, asset.headers['cache-control']]).toEqual([200, 'new', 'public, max-age=31536000, immutable']);
      expect((await app.inject('/assets/index-old.js')).statusCode).toBe(404);
    } finally {
      await app.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

it('warns when the page is not built, answers 404 at / meanwhile, and serves a build made later without a restart', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'oddex-web-'));
  const warnings: unknown[] = [];
  const app = Fastify();
  installEnvelope(app);
  app.log.warn = ((obj: unknown) => void warnings.push(obj)) as typeof app.log.warn;
  try {
    await registerWebPage(app, dir);
    expect(warnings).toEqual([{ dir }]);
    expect((await app.inject('/')).json()).toEqual({ status: 'failure', errorCode: 'NOT_FOUND', message: 'no route GET /' });
    expect((await app.inject('/assets/a.js')).json()).toEqual({ status: 'failure', errorCode: 'NOT_FOUND', message: 'no route GET /assets/a.js' });
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>later</title>');
    writeFileSync(join(dir, 'assets', 'a.js'), 'export {}');
    expect((await app.inject('/')).body).toBe('<!doctype html><title>later</title>');
    expect((await app.inject('/assets/a.js')).body).toBe('export {}');
  } finally {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

describe('POST /user/realtime-token/wallet', () => {
  it('gives a wallet that signs the sign-in text a token for its own channels', async () => {
    const wallet = newWallet();
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = await wallet.signMessage({ message: signInText(wallet.address, timestamp) });
    const res = await ex.post('/user/realtime-token/wallet', { address: wallet.address.toLowerCase(), timestamp, signature });
    expect(res.status).toBe(200);
    const token = res.body.data.token as string;
    const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { sub: string; exp: number; iat: number };
    expect(claims.sub).toBe(wallet.address);
    expect(claims.exp - claims.iat).toBe(ex.ctx.config.realtimeTokenTtlSeconds);

    // The token opens a connection that may follow the wallet's active_orders channel.
    const client = centrifugeClient(wsUrl(ex), { token });
    try {
      client.connect();
      const sub: Subscription = client.newSubscription(`active_orders:${wallet.address}`);
      let subscribed = false;
      sub.on('subscribed', () => (subscribed = true));
      sub.subscribe();
      await waitFor(() => subscribed, 5000, 'subscription');
    } finally {
      client.disconnect();
    }
  });

  it('refuses a signature by another wallet, a stale timestamp and a malformed body, with their errorCodes', async () => {
    const wallet = newWallet();
    const other = newWallet();
    const now = Math.floor(Date.now() / 1000);
    const byOther = await other.signMessage({ message: signInText(wallet.address, now) });
    expect(await ex.post('/user/realtime-token/wallet', { address: wallet.address, timestamp: now, signature: byOther })).toMatchObject({
      status: 403,
      body: { status: 'failure', errorCode: 'SIGNATURE_MISMATCH' },
    });

    const old = now - 120;
    const stale = await wallet.signMessage({ message: signInText(wallet.address, old) });
    expect(await ex.post('/user/realtime-token/wallet', { address: wallet.address, timestamp: old, signature: stale })).toMatchObject({
      status: 400,
      body: { status: 'failure', errorCode: 'STALE_TIMESTAMP' },
    });

    // Signed for one timestamp, sent with another: the text differs, so does the signer.
    const signed = await wallet.signMessage({ message: signInText(wallet.address, now) });
    expect((await ex.post('/user/realtime-token/wallet', { address: wallet.address, timestamp: now - 1, signature: signed })).body.errorCode).toBe('SIGNATURE_MISMATCH');
    expect((await ex.post('/user/realtime-token/wallet', { address: wallet.address, timestamp: now, signature: '0x1234' })).body.errorCode).toBe('SIGNATURE_MISMATCH');

    const malformed = await ex.post('/user/realtime-token/wallet', { address: 'nope', timestamp: now, signature: signed });
    expect(malformed.status).toBe(400);
    expect(malformed.body.status).toBe('failure');
  });
});

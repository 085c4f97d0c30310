// Self-service API keys (POST /user/api-keys, /user/api-keys/list, /user/api-keys/:id/revoke) as a bot author uses
// them: every signature is made by viem over the documented text, never by the exchange's own code.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { PrivateKeyAccount } from 'viem/accounts';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { OddexClient } from '@oddex/sdk';
import { startTestExchange, type TestExchange } from './helpers/server.js';
import { fetchToken, rawConnected, wsUrl, type RawClient } from './helpers/realtime.js';
import { newWallet } from './helpers/wallets.js';

const LIMIT = 3;
let ex: TestExchange;
const clients: RawClient[] = [];

beforeAll(async () => {
  ex = await startTestExchange({ userApiKeysPerAddress: LIMIT });
});
afterAll(async () => {
  for (const c of clients) c.close();
  await ex?.destroy();
});

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** The documented texts, spelled out here rather than taken from src/. */
const createText = (address: string, timestamp: number) => `Oddex API key\naddress: ${address}\ntimestamp: ${timestamp}`;
const listText = (address: string, timestamp: number) => `Oddex API key\naction: list\naddress: ${address}\ntimestamp: ${timestamp}`;
const revokeText = (id: string, address: string, timestamp: number) =>
  `Oddex API key\naction: revoke ${id}\naddress: ${address}\ntimestamp: ${timestamp}`;

async function signed(wallet: PrivateKeyAccount, text: (address: string, timestamp: number) => string, timestamp = nowSeconds()) {
  return { address: wallet.address, timestamp, signature: await wallet.signMessage({ message: text(wallet.address, timestamp) }) };
}

const create = async (wallet: PrivateKeyAccount) => ex.post('/user/api-keys', await signed(wallet, createText));
const list = async (wallet: PrivateKeyAccount) => ex.post('/user/api-keys/list', await signed(wallet, listText));
const revoke = async (wallet: PrivateKeyAccount, id: string) =>
  ex.post(`/user/api-keys/${id}/revoke`, await signed(wallet, (a, t) => revokeText(id, a, t)));

const refusal = (res: { status: number; body: { errorCode?: string } }) => [res.status, res.body.errorCode];

describe('a key a wallet creates for itself', () => {
  it('opens a realtime session and registers a heartbeat; once revoked it is refused and its session closed', async () => {
    const bot = newWallet();
    const created = await create(bot);
    expect(created.status).toBe(200);
    expect(created.body).toEqual({ status: 'success', data: { id: expect.any(String), apiKey: expect.any(String), address: bot.address } });
    const { id, apiKey } = created.body.data as { id: string; apiKey: string };

    const session = await rawConnected(wsUrl(ex), await fetchToken(ex, apiKey));
    clients.push(session);
    const heartbeat = await ex.post('/heartbeat', { requestor: bot.address, timeoutSeconds: 30 }, { 'x-api-key': apiKey });
    expect(heartbeat.status).toBe(200);
    expect(heartbeat.body.data).toMatchObject({ requestor: bot.address, timeoutSeconds: 30 });

    const revoked = await revoke(bot, id);
    expect(revoked.body).toEqual({ status: 'success', data: { id, revoked: true } });
    expect([await session.closed(), session.closeReason]).toEqual([3500, 'api key revoked']);
    expect(refusal(await ex.get('/user/realtime-token/api-key', { 'x-api-key': apiKey }))).toEqual([401, 'INVALID_API_KEY']);
    expect(refusal(await ex.post('/heartbeat', { requestor: bot.address, timeoutSeconds: 30 }, { 'x-api-key': apiKey }))).toEqual([401, 'INVALID_API_KEY']);
    // Revoked once is gone: a second revoke finds no live key.
    expect(refusal(await revoke(bot, id))).toEqual([404, 'API_KEY_NOT_FOUND']);
  });

  it('lists exactly the live keys of the signing wallet, operator-issued ones of its address included', async () => {
    const bot = newWallet();
    const other = newWallet();
    const mine = (await create(bot)).body.data.id as string;
    const byOperator = (await ex.admin('POST', '/admin/api-keys', { address: bot.address })).body.data.id as string;
    const gone = (await create(bot)).body.data.id as string;
    const theirs = (await create(other)).body.data.id as string;
    expect((await revoke(bot, gone)).status).toBe(200);

    const listed = await list(bot);
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((k: { id: string }) => k.id)).toEqual([mine, byOperator]);
    for (const k of listed.body.data) expect(Object.keys(k).sort()).toEqual(['createdAt', 'id']);
    expect((await list(other)).body.data.map((k: { id: string }) => k.id)).toEqual([theirs]);
    expect((await list(newWallet())).body.data).toEqual([]);

    // The operator's key of the address is the wallet's to revoke.
    expect((await revoke(bot, byOperator)).status).toBe(200);
    expect((await list(bot)).body.data.map((k: { id: string }) => k.id)).toEqual([mine]);
  });
});

describe('refusals', () => {
  it('a timestamp more than 60 s from server time: 400 STALE_TIMESTAMP', async () => {
    const bot = newWallet();
    for (const timestamp of [nowSeconds() - 120, nowSeconds() + 120]) {
      expect(refusal(await ex.post('/user/api-keys', await signed(bot, createText, timestamp)))).toEqual([400, 'STALE_TIMESTAMP']);
      expect(refusal(await ex.post('/user/api-keys/list', await signed(bot, listText, timestamp)))).toEqual([400, 'STALE_TIMESTAMP']);
    }
  });

  it('another signer, or a signature over another action\'s text: 403 SIGNATURE_MISMATCH', async () => {
    const bot = newWallet();
    const thief = newWallet();
    const { id } = (await create(bot)).body.data as { id: string };
    const other = (await create(bot)).body.data.id as string;

    // Signed by someone else than `address`.
    const t = nowSeconds();
    const forged = { address: bot.address, timestamp: t, signature: await thief.signMessage({ message: createText(bot.address, t) }) };
    expect(refusal(await ex.post('/user/api-keys', forged))).toEqual([403, 'SIGNATURE_MISMATCH']);

    // A create signature replayed as a revoke or a list, a list signature as a create, a revoke of one key for another.
    const createSig = await signed(bot, createText);
    expect(refusal(await ex.post(`/user/api-keys/${id}/revoke`, createSig))).toEqual([403, 'SIGNATURE_MISMATCH']);
    expect(refusal(await ex.post('/user/api-keys/list', createSig))).toEqual([403, 'SIGNATURE_MISMATCH']);
    expect(refusal(await ex.post('/user/api-keys', await signed(bot, listText)))).toEqual([403, 'SIGNATURE_MISMATCH']);
    const revokeOther = await signed(bot, (a, ts) => revokeText(other, a, ts));
    expect(refusal(await ex.post(`/user/api-keys/${id}/revoke`, revokeOther))).toEqual([403, 'SIGNATURE_MISMATCH']);
    // The realtime sign-in is not an API key signature either.
    const signIn = await signed(bot, (a, ts) => `Oddex realtime sign-in\naddress: ${a}\ntimestamp: ${ts}`);
    expect(refusal(await ex.post('/user/api-keys', signIn))).toEqual([403, 'SIGNATURE_MISMATCH']);

    expect((await list(bot)).body.data.map((k: { id: string }) => k.id)).toEqual([id, other]);
  });

  it('someone else\'s key id: 404 API_KEY_NOT_FOUND, and the key stays live', async () => {
    const owner = newWallet();
    const stranger = newWallet();
    const { id, apiKey } = (await create(owner)).body.data as { id: string; apiKey: string };
    expect(refusal(await revoke(stranger, id))).toEqual([404, 'API_KEY_NOT_FOUND']);
    expect(refusal(await revoke(stranger, 'no-such-key'))).toEqual([404, 'API_KEY_NOT_FOUND']);
    expect((await ex.get('/user/realtime-token/api-key', { 'x-api-key': apiKey })).status).toBe(200);
  });

  it('a wallet holding ODDEX_USER_API_KEYS_PER_ADDRESS live keys: 409 API_KEY_LIMIT_REACHED until it revokes one', async () => {
    const bot = newWallet();
    // Operator-issued keys of the address count too.
    await ex.admin('POST', '/admin/api-keys', { address: bot.address });
    const ids: string[] = [];
    for (let i = 1; i < LIMIT; i++) ids.push((await create(bot)).body.data.id);
    const refused = await create(bot);
    expect(refusal(refused)).toEqual([409, 'API_KEY_LIMIT_REACHED']);
    expect(refused.body.message).toContain(`${LIMIT} live API keys`);
    expect((await revoke(bot, ids[0]!)).status).toBe(200);
    expect((await create(bot)).status).toBe(200);
  });

  it('a malformed body: 400 INVALID_PARAMETER', async () => {
    const bot = newWallet();
    const good = await signed(bot, createText);
    for (const body of [
      { address: bot.address, timestamp: good.timestamp },
      { ...good, address: '0x1234' },
      { ...good, timestamp: String(good.timestamp) },
      { ...good, extra: 1 },
      { ...good, signature: '0x' + 'ab'.repeat(200) },
    ]) {
      expect(refusal(await ex.post('/user/api-keys', body))).toEqual([400, 'INVALID_PARAMETER']);
    }
    expect(refusal(await ex.post(`/user/api-keys/${'x'.repeat(65)}/revoke`, good))).toEqual([400, 'INVALID_PARAMETER']);
  });
});

describe('OddexClient', () => {
  it('creates, lists and revokes keys signing with a private key or a viem account', async () => {
    const key = generatePrivateKey();
    for (const signer of [key, privateKeyToAccount(key)]) {
      const client = new OddexClient({ url: ex.url, signer });
      const created = await client.createApiKey();
      expect(created.address).toBe(privateKeyToAccount(key).address);
      expect((await client.listApiKeys()).map((k) => k.id)).toContain(created.id);

      const withKey = new OddexClient({ url: ex.url, signer, apiKey: created.apiKey, WebSocket });
      expect(await withKey.realtimeToken()).toMatch(/^ey/);
      expect(await withKey.heartbeat(0)).toMatchObject({ requestor: created.address, timeoutSeconds: 0 });

      expect(await client.revokeApiKey(created.id)).toEqual({ id: created.id, revoked: true });
      expect((await client.listApiKeys()).map((k) => k.id)).not.toContain(created.id);
      await expect(withKey.realtimeToken()).rejects.toMatchObject({ errorCode: 'INVALID_API_KEY', status: 401 });
    }
  });
});

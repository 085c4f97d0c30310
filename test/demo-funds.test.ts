// POST /user/demo-funds: in demo mode on the local ledger a wallet gets test funds without the operator. Grants are
// exact and journaled (they survive a restart), bounded by a ceiling on what the address holds, limited per address
// and per client address, and refused with their own errorCode where the exchange gives no demo funds.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { defaultConfig, loadConfig } from '../src/config.js';
import { demoFundsOffer, demoFundsRefusal } from '../src/api/demo-funds.js';
import { startTestExchange, type TestExchange } from './helpers/server.js';
import { newWallet, USDC } from './helpers/wallets.js';

const WINDOW_MS = 60_000;
const demoFunds = { amount: 100n * USDC, maxBalance: 250n * USDC, windowMs: WINDOW_MS, perAddress: 2, perClient: 4 };

let ex: TestExchange;
/** Added to the server clock: a test starts a new quota window by moving it past the last one. */
let offset = 0;

beforeAll(async () => {
  // demoLiquidity off (the test helper's default): no demo bots sharing this client address.
  ex = await startTestExchange({ demo: true, demoFunds }, { now: () => Date.now() + offset });
});
afterAll(() => ex?.destroy());
beforeEach(() => {
  offset += WINDOW_MS;
});

const grant = (address: string, headers?: Record<string, string>) => ex.post('/user/demo-funds', { address }, headers);
const balanceOf = async (address: string) => (await ex.get(`/balances/${address}`)).body.data;

describe('POST /user/demo-funds', () => {
  it('is announced in /metadata and grants the fixed amount, exact to the wei and durable', async () => {
    expect((await ex.get('/metadata')).body.data.demoFunds).toEqual({ amount: '100000000', maxBalance: '250000000' });
    const w = newWallet();
    const first = await grant(w.address.toLowerCase());
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ address: w.address, balance: '100000000', escrowed: '0' });
    expect(await balanceOf(w.address)).toMatchObject({ balance: '100000000', escrowed: '0', openExposure: '0' });
    expect((await grant(w.address)).body.data.balance).toBe('200000000');

    // Journaled like the operator's faucet: the funds are there after a restart.
    ex = await ex.restart();
    expect(await balanceOf(w.address)).toMatchObject({ balance: '200000000', escrowed: '0' });
  });

  it('refuses a grant that would lift balance plus escrow above the ceiling: 409 DEMO_FUNDS_CAP_REACHED', async () => {
    const w = newWallet();
    expect((await ex.admin('POST', '/admin/faucet', { address: w.address, amount: (150n * USDC + 1n).toString() })).status).toBe(200);
    const refused = await grant(w.address);
    expect([refused.status, refused.body.status, refused.body.errorCode]).toEqual([409, 'failure', 'DEMO_FUNDS_CAP_REACHED']);
    expect(refused.body.message).toContain('250000000');
    expect((await balanceOf(w.address)).balance).toBe('150000001');

    // Exactly at the ceiling is allowed.
    const v = newWallet();
    await ex.admin('POST', '/admin/faucet', { address: v.address, amount: (150n * USDC).toString() });
    expect((await grant(v.address)).body.data.balance).toBe('250000000');
  });

  it('refuses an invalid address: 400 INVALID_PARAMETER naming the field', async () => {
    for (const body of [{ address: '0x1234' }, { address: 'not an address' }, {}, { address: newWallet().address, amount: '1' }]) {
      const res = await ex.post('/user/demo-funds', body);
      expect([res.status, res.body.errorCode]).toEqual([400, 'INVALID_PARAMETER']);
    }
    const res = await ex.post('/user/demo-funds', { address: '0x1234' });
    expect(res.body.details[0].field).toBe('address');
  });

  it('limits grants per address: 429 RATE_LIMITED with Retry-After, other addresses unaffected, then the window resets', async () => {
    const w = newWallet();
    expect((await grant(w.address)).status).toBe(200);
    expect((await grant(w.address)).status).toBe(200);
    await ex.admin('POST', '/admin/chain/transfer', { from: w.address, to: newWallet().address, amount: (200n * USDC).toString() }); // below the ceiling again
    const refused = await grant(w.address);
    expect([refused.status, refused.body.errorCode]).toEqual([429, 'RATE_LIMITED']);
    expect(refused.body.message).toMatch(/for this address/);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(WINDOW_MS / 1000 - 5);
    expect(retryAfter).toBeLessThanOrEqual(WINDOW_MS / 1000);
    expect((await balanceOf(w.address)).balance).toBe('0');

    expect((await grant(newWallet().address)).status).toBe(200);
    offset += WINDOW_MS;
    expect((await grant(w.address)).body.data.balance).toBe('100000000');
  });

  it('limits requests per client address, whatever address they name or proxy header they send', async () => {
    for (let i = 0; i < 4; i++) expect((await grant(newWallet().address)).status).toBe(200);
    const w = newWallet();
    const refused = await grant(w.address, { 'x-forwarded-for': '203.0.113.7' });
    expect([refused.status, refused.body.errorCode]).toEqual([429, 'RATE_LIMITED']);
    expect(refused.body.message).toMatch(/for this client address/);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await balanceOf(w.address)).balance).toBe('0');
  });
});

describe('where there are no demo funds', () => {
  it('outside demo mode: 403 DEMO_MODE_OFF, and /metadata says null', async () => {
    const plain = await startTestExchange(); // the helper's default: demo off
    try {
      expect((await plain.get('/metadata')).body.data.demoFunds).toBeNull();
      const w = newWallet();
      const res = await plain.post('/user/demo-funds', { address: w.address });
      expect([res.status, res.body.status, res.body.errorCode]).toEqual([403, 'failure', 'DEMO_MODE_OFF']);
      expect((await plain.get(`/balances/${w.address}`)).body.data.balance).toBe('0');
    } finally {
      await plain.destroy();
    }
  });

  it('on an EVM chain: 400 NOT_ON_LOCAL_LEDGER, even in demo mode, and no offer', () => {
    const evm = { ...defaultConfig(), chain: 'evm' as const, demo: true };
    expect(demoFundsRefusal(evm)).toMatchObject({ httpStatus: 400, errorCode: 'NOT_ON_LOCAL_LEDGER' });
    expect(demoFundsOffer(evm)).toBeNull();
    expect(demoFundsRefusal({ ...defaultConfig(), demo: false })).toMatchObject({ httpStatus: 403, errorCode: 'DEMO_MODE_OFF' });
    expect(demoFundsOffer(defaultConfig())).toEqual({ amount: '100000000', maxBalance: '1000000000' });
  });
});

it('reads its settings from the environment and refuses a zero grant', () => {
  const env = {
    ODDEX_DEMO_FUNDS_AMOUNT: '5000000',
    ODDEX_DEMO_FUNDS_MAX_BALANCE: '20000000',
    ODDEX_DEMO_FUNDS_WINDOW_MS: '60000',
    ODDEX_DEMO_FUNDS_PER_ADDRESS: '1',
    ODDEX_DEMO_FUNDS_PER_CLIENT: '2',
  };
  expect(loadConfig(env).demoFunds).toEqual({ amount: 5_000_000n, maxBalance: 20_000_000n, windowMs: 60_000, perAddress: 1, perClient: 2 });
  expect(() => loadConfig({ ODDEX_DEMO_FUNDS_AMOUNT: '0' })).toThrow(/ODDEX_DEMO_FUNDS_AMOUNT: expected a positive amount/);
});

// The browser wallet in a real browser (Debian chromium through playwright-core): where the page finds an injected
// EIP-1193 provider (window.ethereum) it signs with it by default, as the README says; the development wallet is
// the bettor's choice then, remembered until they switch back; a provider that refuses leaves the development wallet
// signing, with the reason shown. The provider here is the test's: its account is a viem key held in the test
// process, which signs what the page asks (personal_sign, eth_signTypedData_v4).
import { expect, it } from 'vitest';
import type { PrivateKeyAccount } from 'viem';
import { betTestConfig, createFixtureMarket, createSoccerLeague, fund, fundedWallet, postOrder } from './helpers/bets.js';
import { browserSuite, type WatchedPage } from './helpers/browser.js';
import { E18, USDC, newWallet } from './helpers/wallets.js';

const suite = browserSuite({ ...betTestConfig(), demo: false });
const DEV_KEY = 'oddex.developmentWallet.privateKey';

/** A page whose window.ethereum answers for `account`, or refuses every account request (code 4001) when `refuse`. */
async function pageWithProvider(account: PrivateKeyAccount, refuse = false): Promise<WatchedPage & { requests: string[] }> {
  const w = await suite.open();
  const requests: string[] = [];
  await w.page.exposeFunction('testWalletRequest', async (method: string, params: unknown[]) => {
    requests.push(method);
    switch (method) {
      case 'eth_requestAccounts':
      case 'eth_accounts':
        if (refuse) return { error: { code: 4001, message: 'User rejected the request.' } };
        return { result: [account.address] };
      case 'personal_sign':
        return { result: await account.signMessage({ message: { raw: params[0] as `0x${string}` } }) };
      case 'eth_signTypedData_v4':
        return { result: await account.signTypedData(JSON.parse(params[1] as string)) };
      default:
        return { error: { code: 4200, message: `unsupported ${method}` } };
    }
  });
  // Page code as text: the test process compiles without the DOM's types.
  await w.page.addInitScript(`
    window.ethereum = {
      async request({ method, params }) {
        const answer = await window.testWalletRequest(method, params ?? []);
        if (answer.error) throw Object.assign(new Error(answer.error.message), { code: answer.error.code });
        return answer.result;
      },
      on() {},
      removeListener() {},
    };
  `);
  return { ...w, requests };
}

it('signs with the browser wallet by default: its account, its realtime sign-in and its bets', async () => {
  const ex = suite.ex;
  const account = newWallet();
  await fund(ex, account, 100n * USDC);
  const { markets } = await createFixtureMarket(ex, await createSoccerLeague(ex), { type: 52 });
  const market = markets[0]!.marketHash;
  await postOrder(ex, await fundedWallet(ex), { marketHash: market, totalBetSize: 20n * USDC, percentageOdds: 40n * E18, isMakerBettingOutcomeOne: false });

  const w = await pageWithProvider(account);
  const { page } = w;
  await page.goto(`${ex.url}/#/account`);
  const badge = page.locator('.wallet');
  await expect.poll(() => badge.getAttribute('data-wallet-kind'), { timeout: 15_000 }).toBe('injected');
  expect(await badge.getAttribute('data-wallet-address')).toBe(account.address);
  expect(await badge.innerText()).toMatch(/^Browser wallet 0x/);
  // No development key was made for a page that never used one.
  expect(await page.evaluate(`localStorage.getItem(${JSON.stringify(DEV_KEY)})`)).toBeNull();
  // The realtime connection signed in with the browser wallet (personal_sign), and the account is its own.
  await expect.poll(() => page.locator('[data-connection]').getAttribute('data-connection'), { timeout: 15_000 }).toBe('connected');
  expect(w.requests).toContain('personal_sign');
  await expect.poll(() => page.locator('[data-balance]').getAttribute('data-balance'), { timeout: 15_000 }).toBe((100n * USDC).toString());

  // A bet is signed by the browser wallet (EIP-712 typed data) and filled for its address.
  await page.goto(`${ex.url}/#/market/${market}`);
  const ticket = page.getByLabel('Bet ticket');
  await expect.poll(() => ticket.locator('.facts').innerText(), { timeout: 20_000 }).not.toMatch(/no offer|reading/);
  await ticket.getByLabel('Stake').fill('6');
  await ticket.getByRole('button', { name: /^Bet on / }).click();
  await ticket.getByText(/Filled: 6\.00 USDC/).waitFor({ timeout: 30_000 });
  expect(w.requests).toContain('eth_signTypedData_v4');
  const { trades } = (await ex.get(`/trades?bettor=${account.address}`)).body.data as { trades: { marketHash: string }[] };
  expect(trades.map((t) => t.marketHash)).toEqual([market]);

  // The development wallet is the bettor's choice then, and stays it after a reload, until they switch back.
  await page.getByRole('button', { name: 'Use development wallet' }).click();
  await expect.poll(() => badge.getAttribute('data-wallet-kind')).toBe('development');
  await page.reload();
  await expect.poll(() => badge.getAttribute('data-wallet-kind'), { timeout: 15_000 }).toBe('development');
  await page.getByRole('button', { name: 'Use browser wallet' }).click();
  await expect.poll(() => badge.getAttribute('data-wallet-address')).toBe(account.address);
  await page.reload();
  await expect.poll(() => badge.getAttribute('data-wallet-kind'), { timeout: 15_000 }).toBe('injected');
  expect(w.errors).toEqual([]);
});

it('signs with the development wallet, and says why, when the browser wallet refuses to share an account', async () => {
  const w = await pageWithProvider(newWallet(), true);
  const { page } = w;
  await page.goto(`${suite.ex.url}/#/account`);
  const badge = page.locator('.wallet');
  await expect.poll(() => badge.getAttribute('data-wallet-kind'), { timeout: 15_000 }).toBe('development');
  expect(await page.locator('[data-wallet-error]').innerText()).toMatch(/^The browser wallet did not connect \(User rejected the request\.\): the development wallet signs\.$/);
  expect(w.requests).toEqual(expect.arrayContaining(['eth_requestAccounts']));
  expect(await page.getByRole('button', { name: 'Use browser wallet' }).count()).toBe(1);
  expect(w.errors).toEqual([]);
});

it('keeps the development wallet where the browser has no wallet', async () => {
  const w = await suite.open();
  await w.page.goto(`${suite.ex.url}/#/account`);
  await expect.poll(() => w.page.locator('.wallet').getAttribute('data-wallet-kind'), { timeout: 15_000 }).toBe('development');
  expect(await w.page.getByRole('button', { name: 'Use browser wallet' }).count()).toBe(0);
  expect(w.errors).toEqual([]);
});

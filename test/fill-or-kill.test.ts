// fillOrKill and minStakeWei over HTTP: unsigned fields on a viem-signed fill that can only refuse what the signature
// allows. A refused fill answers its catalogued code and leaves books and balances exactly as they were.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PrivateKeyAccount } from 'viem';
import { startTestExchange, type TestExchange } from './helpers/server.js';
import { balanceOf, betTestConfig, createFixtureMarket, createSoccerLeague, fundedWallet, postOrder } from './helpers/bets.js';
import { E18, USDC, signedFill } from './helpers/wallets.js';

describe('fillOrKill and minStakeWei on POST /orders/fill/v2', () => {
  let ex: TestExchange;
  let market: string;
  let maker: PrivateKeyAccount;
  let taker: PrivateKeyAccount;
  let orderHash: string;
  // A maker of 100 USDC at 40% leaves 150 USDC of taker space at 60%.
  const SPACE = 150n * USDC;

  const fillBody = async (stakeWei: bigint, extra: Record<string, unknown>) => ({
    ...(await signedFill(taker, ex.ctx.config, { market, isTakerBettingOutcomeOne: false, stakeWei, desiredOdds: 60n * E18 })),
    ...extra,
  });
  /** Everything a refused fill must leave alone: the order, the book and both balances. */
  const observed = async () => ({
    order: (await ex.get(`/orders?orderHashes=${orderHash}`)).body.data,
    book: (await ex.get(`/orders?marketHashes=${market}`)).body.data,
    maker: await balanceOf(ex, maker),
    taker: await balanceOf(ex, taker),
  });

  beforeAll(async () => {
    ex = await startTestExchange(betTestConfig());
    const { markets } = await createFixtureMarket(ex, await createSoccerLeague(ex), { type: 52 });
    market = markets[0]!.marketHash;
    maker = await fundedWallet(ex);
    taker = await fundedWallet(ex);
    orderHash = await postOrder(ex, maker, { marketHash: market, totalBetSize: 100n * USDC, percentageOdds: 40n * E18, isMakerBettingOutcomeOne: true });
  });
  afterAll(async () => ex.destroy());

  it('refuses malformed or impossible minimums before anything else', async () => {
    for (const minStakeWei of ['0', '-1', '1.5', String(SPACE + 1n)]) {
      const res = await ex.post('/orders/fill/v2', await fillBody(SPACE, { minStakeWei }));
      expect([minStakeWei, res.status, res.body.errorCode]).toEqual([minStakeWei, 400, 'INVALID_MIN_STAKE']);
    }
    const res = await ex.post('/orders/fill/v2', await fillBody(SPACE, { fillOrKill: 'yes' }));
    expect(res.status).toBe(400);
  });

  it('fillOrKill refuses a stake one wei beyond the book and changes nothing', async () => {
    const before = await observed();
    const res = await ex.post('/orders/fill/v2', await fillBody(SPACE + 1n, { fillOrKill: true }));
    expect([res.status, res.body.errorCode]).toEqual([400, 'FILL_OR_KILL_NOT_FILLED']);
    expect(await observed()).toEqual(before);
    expect(before.taker).toMatchObject({ balance: (1000n * USDC).toString(), pendingTakerStake: '0' });
  });

  it('minStakeWei one wei above what matches is refused unchanged; exactly what matches fills', async () => {
    const before = await observed();
    const refused = await ex.post('/orders/fill/v2', await fillBody(200n * USDC, { minStakeWei: (SPACE + 1n).toString() }));
    expect([refused.status, refused.body.errorCode]).toEqual([400, 'FILL_BELOW_MIN_STAKE']);
    expect(await observed()).toEqual(before);

    const res = await ex.post('/orders/fill/v2', await fillBody(200n * USDC, { minStakeWei: SPACE.toString(), fillOrKill: false }));
    expect([res.status, res.body.data?.totalFilled, res.body.data?.isPartialFill]).toEqual([200, SPACE.toString(), true]);
    // Pending until the chain confirms it, then in escrow: either way the whole matched stake, to the wei.
    const after = await balanceOf(ex, taker);
    expect(BigInt(after.pendingTakerStake) + BigInt(after.escrowed)).toBe(SPACE);
  });
});

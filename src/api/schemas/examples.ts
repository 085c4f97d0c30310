// Signed request examples for the OpenAPI document: real signatures, made with this deployment's domains and
// executor by a published example key (never fund it), so a reader can check them with any EIP-191/712 library.
import type { FastifySchema } from 'fastify';
import type { Config } from '../../config.js';
import { addressOf, signCancelAll, signCancelEvent, signCancelV2, signFill, signOrder, signParlayRequest } from '../../protocol/signing.js';

/** The example wallet's private key: public on purpose, for documentation only. */
export const EXAMPLE_PRIVATE_KEY = '0x' + '0123456789abcdef'.repeat(4);
const MARKET = '0x' + 'ab'.repeat(32);
const EXPIRY = 1_893_456_000; // 2030-01-01
const TIMESTAMP = 1_767_225_600; // 2026-01-01: a live request must carry the current time (within 60 s)
const SALT = 0x5a17n;
const CANCEL_SALT = '0x' + '5a'.repeat(32);
const PARLAY_LEGS = [
  { marketHash: MARKET, bettingOutcomeOne: true },
  { marketHash: '0x' + 'ef'.repeat(32), bettingOutcomeOne: false },
];

/** Request bodies by "METHOD url", each validly signed for this configuration. */
export function signedExamples(c: Config): Record<string, unknown> {
  const key = EXAMPLE_PRIVATE_KEY;
  const maker = addressOf(key);
  const order = {
    marketHash: MARKET,
    baseToken: c.baseTokenAddress,
    totalBetSize: 20_000_000n,
    percentageOdds: 55_000_000_000_000_000_000n,
    expiry: BigInt(EXPIRY),
    salt: SALT,
    maker,
    executor: c.executorAddress,
    isMakerBettingOutcomeOne: true,
  };
  const fill = {
    market: MARKET,
    baseToken: c.baseTokenAddress,
    stakeWei: 5_000_000n,
    desiredOdds: 45_000_000_000_000_000_000n,
    oddsSlippage: 2,
    isTakerBettingOutcomeOne: false,
    fillSalt: SALT,
  };
  const cancelDomain = (name: string) => ({ name, version: '1.0', chainId: c.chainId, salt: CANCEL_SALT });
  const cancel = { salt: CANCEL_SALT, maker, timestamp: TIMESTAMP };
  const orderHashes = ['0x' + 'cd'.repeat(32)];
  return {
    'POST /orders/new': {
      orders: [
        {
          marketHash: MARKET,
          maker,
          totalBetSize: order.totalBetSize.toString(),
          percentageOdds: order.percentageOdds.toString(),
          baseToken: c.baseTokenAddress,
          apiExpiry: EXPIRY,
          expiry: EXPIRY,
          executor: c.executorAddress,
          isMakerBettingOutcomeOne: true,
          salt: SALT.toString(),
          signature: signOrder(order, key),
        },
      ],
    },
    'POST /orders/fill/v2': {
      ...fill,
      stakeWei: fill.stakeWei.toString(),
      desiredOdds: fill.desiredOdds.toString(),
      fillSalt: SALT.toString(),
      taker: maker,
      takerSig: signFill(
        { name: c.domainNames.fill, version: c.domainVersion, chainId: c.chainId, verifyingContract: c.eip712FillHasher },
        fill,
        key,
      ),
    },
    'POST /orders/cancel/v2': {
      orderHashes,
      ...cancel,
      signature: signCancelV2(cancelDomain(c.domainNames.cancelV2), { orderHashes, timestamp: BigInt(TIMESTAMP) }, key),
    },
    'POST /orders/cancel/event': {
      exchangeEventId: 'L1018',
      ...cancel,
      signature: signCancelEvent(cancelDomain(c.domainNames.cancelEvent), { exchangeEventId: 'L1018', timestamp: BigInt(TIMESTAMP) }, key),
    },
    'POST /orders/cancel/all': {
      ...cancel,
      signature: signCancelAll(cancelDomain(c.domainNames.cancelAll), { timestamp: BigInt(TIMESTAMP) }, key),
    },
    'POST /parlays/request': {
      bettor: maker,
      baseToken: c.baseTokenAddress,
      requestSize: '10000000',
      legs: PARLAY_LEGS,
      timestamp: TIMESTAMP,
      salt: CANCEL_SALT,
      signature: signParlayRequest(
        cancelDomain(c.domainNames.parlayRequest),
        { legs: PARLAY_LEGS, baseToken: c.baseTokenAddress, requestSize: 10_000_000n, timestamp: BigInt(TIMESTAMP) },
        key,
      ),
    },
    'POST /heartbeat': { requestor: maker, timeoutSeconds: 30 },
    'POST /admin/faucet': { address: maker, amount: '100000000' },
    'POST /admin/api-keys': { address: maker },
  };
}

/** The swagger `transform`: attaches the example to the documented body of its route. */
export function exampleTransform(examples: Record<string, unknown>) {
  return ({ schema, url, route }: { schema: FastifySchema; url: string; route: { method: string | string[] } }) => {
    const method = Array.isArray(route.method) ? route.method[0] : route.method;
    const example = examples[`${method} ${url}`];
    if (!example || !schema?.body) return { schema, url };
    return { schema: { ...schema, body: { ...(schema.body as object), examples: [example] } } as FastifySchema, url };
  };
}

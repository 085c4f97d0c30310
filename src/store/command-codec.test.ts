// Journal row formats: version 2 rows round-trip every command exactly, and journals holding version 1 rows (as
// earlier releases wrote them) still replay to the same engine state.
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Engine } from '../engine/engine.js';
import { defaultEngineParams } from '../../test/helpers/engine-params.js';
import type { Command, MarketRef, NewOrder } from '../engine/types.js';
import { decodeCommand, encodeCommand } from './command-codec.js';
import { migrate } from './sqlite/db.js';
import { Journal } from './sqlite/journal.js';
import { encodeJson } from './json-codec.js';
import { MIGRATIONS } from './sqlite/migrations.js';

const TOKEN = '0x00000000000000000000000000000000000000C1';
const MAKER = '0x00000000000000000000000000000000000000A1';
const TAKER = '0x00000000000000000000000000000000000000B1';
const E18 = 10n ** 18n;
const USDC = 1_000_000n;
const market: MarketRef = { marketHash: '0x' + 'a1'.padStart(64, '0'), exchangeEventId: 'ev1', tradeable: true };
const hex = (n: number, prefix = '') => '0x' + prefix + n.toString(16).padStart(64 - prefix.length, '0');

const wei = fc.bigInt({ min: 0n, max: (1n << 256n) - 1n });
const addr = fc.constantFrom(MAKER, TAKER, TOKEN);
const order: fc.Arbitrary<NewOrder> = fc.record({
  orderHash: fc.nat().map((n) => hex(n)),
  marketHash: fc.constant(market.marketHash),
  maker: addr,
  baseToken: addr,
  executor: addr,
  totalBetSize: wei,
  percentageOdds: wei,
  expiry: fc.nat(),
  apiExpiry: fc.nat(),
  salt: fc.bigInt({ min: 0n, max: 1n << 255n }).map(String),
  isMakerBettingOutcomeOne: fc.boolean(),
  signature: fc.uint8Array({ maxLength: 65 }).map((b) => '0x' + Buffer.from(b).toString('hex')),
});
const at = fc.nat();
const commandArb: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ kind: fc.constant('faucet' as const), at, address: addr, amount: wei }),
  fc.record({ kind: fc.constant('transfer' as const), at, from: addr, to: addr, amount: wei }),
  fc.record({ kind: fc.constant('postOrders' as const), at, orders: fc.array(order, { maxLength: 3 }), markets: fc.constant([market]).map((m) => [...m]) }),
  fc.record(
    {
      kind: fc.constant('fill' as const),
      at,
      fillHash: fc.nat().map((n) => hex(n, 'f')),
      market: fc.constant(market),
      taker: addr,
      baseToken: addr,
      isTakerBettingOutcomeOne: fc.boolean(),
      stakeWei: wei,
      desiredOdds: wei,
      oddsSlippage: fc.integer({ min: 0, max: 100 }),
      fillSalt: fc.nat().map(String),
      signed: fc.record({ market: fc.string(), baseToken: addr, stakeWei: wei, desiredOdds: wei, oddsSlippage: fc.nat(), takerSig: fc.string() }),
      fillOrKill: fc.constant(true as const),
      minStakeWei: wei,
      // A cash out's fee terms.
      cashOut: fc.record({ feeBps: fc.integer({ min: 0, max: 10_000 }), feeAccount: addr, affiliateShareBps: fc.integer({ min: 0, max: 10_000 }) }),
    },
    { requiredKeys: ['kind', 'at', 'fillHash', 'market', 'taker', 'baseToken', 'isTakerBettingOutcomeOne', 'stakeWei', 'desiredOdds', 'oddsSlippage', 'fillSalt'] },
  ),
  fc.record({ kind: fc.constant('confirmFill' as const), at, fillHash: fc.nat().map((n) => hex(n, 'f')) }),
  fc.record({ kind: fc.constant('cancelOrders' as const), at, maker: addr, salt: fc.string(), timestamp: fc.nat(), orderHashes: fc.array(fc.nat().map((n) => hex(n))) }),
  fc.record({ kind: fc.constant('cancelAll' as const), at, maker: addr, salt: fc.string(), timestamp: fc.nat() }),
  fc.record({ kind: fc.constant('heartbeat' as const), at, requestor: addr, timeoutSeconds: fc.nat() }),
  fc.record({
    kind: fc.constant('chainEvents' as const),
    at,
    toBlock: fc.nat(),
    entries: fc.array(
      fc.oneof(
        fc.record({ kind: fc.constant('wallet' as const), address: addr, delta: fc.bigInt({ min: -(1n << 80n), max: 1n << 80n }) }),
        fc.record({ kind: fc.constant('wallet' as const), address: addr, delta: wei, allowanceSpent: wei }),
        fc.record({ kind: fc.constant('approval' as const), owner: addr, amount: wei }),
        fc.record({ kind: fc.constant('claim' as const), marketHash: fc.constant(market.marketHash), bettor: addr, txHash: fc.nat().map((n) => hex(n, 'e')) }),
        fc.record({ kind: fc.constant('refund' as const), refundId: fc.nat(), txHash: fc.nat().map((n) => hex(n, 'e')) }),
      ),
      { maxLength: 3 },
    ),
  }),
);

describe('journal row formats', () => {
  it('decodes what it encodes, every bigint exact (a gateway request id too), and reads version 1 rows of the same commands', () => {
    fc.assert(
      fc.property(commandArb, fc.option(fc.uuid(), { nil: undefined }), (base, requestId) => {
        const cmd: Command = requestId === undefined ? base : { ...base, requestId };
        // fast-check builds records without a prototype: compare values (a bigint never equals its string).
        const row = encodeCommand(cmd);
        expect(decodeCommand(row)).toEqual(cmd);
        expect(decodeCommand(encodeJson(cmd))).toEqual(cmd);
      }),
      { numRuns: 500 },
    );
  });

  it('writes the hot commands as version 2 (bigints as decimal strings, no tags) and leaves the command untouched', () => {
    const post: Command = {
      kind: 'postOrders',
      at: 5,
      markets: [market],
      orders: [
        {
          orderHash: hex(1),
          marketHash: market.marketHash,
          maker: MAKER,
          baseToken: TOKEN,
          executor: TOKEN,
          totalBetSize: 123_000_000n,
          percentageOdds: 505n * 10n ** 17n,
          expiry: 9,
          apiExpiry: 9,
          salt: '7',
          isMakerBettingOutcomeOne: true,
          signature: '0x01',
        },
      ],
    };
    const row = encodeCommand(post);
    expect(row.startsWith('2{')).toBe(true);
    expect(row).not.toContain('$n');
    expect(JSON.parse(row.slice(1)).orders[0]).toMatchObject({ totalBetSize: '123000000', percentageOdds: '50500000000000000000' });
    expect(post.kind === 'postOrders' && post.orders[0]!.totalBetSize).toBe(123_000_000n);
    // Chain events stay in the tagged format (rare; nested amounts).
    expect(encodeCommand({ kind: 'chainEvents', at: 1, toBlock: 2, entries: [{ kind: 'wallet', address: MAKER, delta: -3n, allowanceSpent: 3n }] })).toMatch(/^\{/);
  });

  it('reads a version 2 fill row written before fillOrKill and minStakeWei existed as a fill without them', () => {
    // The row text of an ordinary fill as earlier releases wrote it.
    const row =
      '2{"kind":"fill","at":7,"fillHash":"' + hex(1, 'f') + '","market":' + JSON.stringify(market) + ',"taker":"' + TAKER + '","baseToken":"' + TOKEN +
      '","isTakerBettingOutcomeOne":false,"stakeWei":"5000000","desiredOdds":"50000000000000000000","oddsSlippage":0,"fillSalt":"9"}';
    const cmd = decodeCommand(row);
    expect(cmd).toStrictEqual({ kind: 'fill', at: 7, fillHash: hex(1, 'f'), market, taker: TAKER, baseToken: TOKEN, isTakerBettingOutcomeOne: false, stakeWei: 5_000_000n, desiredOdds: 50n * E18, oddsSlippage: 0, fillSalt: '9' });
    expect(encodeCommand(cmd)).toBe(row);
    const narrowed = { ...cmd, fillOrKill: true as const, minStakeWei: 4_000_000n };
    expect(JSON.parse(encodeCommand(narrowed).slice(1))).toMatchObject({ fillOrKill: true, minStakeWei: '4000000' });
    expect(decodeCommand(encodeCommand(narrowed))).toStrictEqual(narrowed);
  });

  it('replays a kick-off journaled before order persistence existed as it ran: its orders stay on the book', () => {
    // Rows as the release before order persistence wrote them: an order without persistence, a kick-off without
    // lapseInPlay. Such an order restores as LAPSE, but that kick-off lapsed nothing, and its replay must not either.
    const order =
      '{"orderHash":"' + hex(1) + '","marketHash":"' + market.marketHash + '","maker":"' + MAKER + '","baseToken":"' + TOKEN + '","executor":"' + TOKEN +
      '","totalBetSize":"100000000","percentageOdds":"40000000000000000000","expiry":2000000000,"apiExpiry":2000000000,"salt":"1",' +
      '"isMakerBettingOutcomeOne":true,"signature":"0x"}';
    const rows = [
      '2{"kind":"faucet","at":1,"address":"' + MAKER + '","amount":"1000000000"}',
      '2{"kind":"postOrders","at":2,"orders":[' + order + '],"markets":[' + JSON.stringify(market) + ']}',
      '2{"kind":"setFixtureStatus","at":3,"exchangeEventId":"ev1","status":2,"inPlay":true,"closedInPlay":[]}',
    ];
    const engine = new Engine(defaultEngineParams(TOKEN));
    for (const row of rows) engine.apply(decodeCommand(row));
    expect(engine.order(hex(1))).toMatchObject({ status: 'ACTIVE', persistence: 'LAPSE' });
    // The same kick-off journaled today lists the live markets, and lapses the order.
    const today = new Engine(defaultEngineParams(TOKEN));
    for (const row of rows.slice(0, 2)) today.apply(decodeCommand(row));
    today.apply(decodeCommand(encodeCommand({ kind: 'setFixtureStatus', at: 3, exchangeEventId: 'ev1', status: 2, inPlay: true, closedInPlay: [], lapseInPlay: [market.marketHash] })));
    expect(today.order(hex(1))).toBeUndefined();
  });

  it('replays a journal whose older rows are version 1 to the same engine state as the commands applied directly', () => {
    const db = new Database(':memory:');
    migrate(db, MIGRATIONS);
    const journal = new Journal(db);
    const params = defaultEngineParams(TOKEN);
    const live = new Engine(params);
    const orderOf = (i: number): NewOrder => ({
      orderHash: hex(i),
      marketHash: market.marketHash,
      maker: MAKER,
      baseToken: TOKEN,
      executor: TOKEN,
      totalBetSize: 100n * USDC,
      percentageOdds: 40n * E18 + BigInt(i) * (E18 / 2n),
      expiry: 2_000_000_000,
      apiExpiry: 2_000_000_000,
      salt: String(i),
      isMakerBettingOutcomeOne: true,
      signature: '0x',
    });
    const t = 1_700_000_000_000;
    const commands: Command[] = [
      { kind: 'faucet', at: t, address: MAKER, amount: 10n ** 24n },
      { kind: 'faucet', at: t, address: TAKER, amount: 10n ** 24n },
      { kind: 'postOrders', at: t + 1, orders: [orderOf(1), orderOf(2)], markets: [market] },
      { kind: 'fill', at: t + 2, fillHash: hex(1, 'f'), market, taker: TAKER, baseToken: TOKEN, isTakerBettingOutcomeOne: false, stakeWei: 7n * USDC + 3n, desiredOdds: 50n * E18, oddsSlippage: 0, fillSalt: '1' },
      { kind: 'confirmFill', at: t + 3, fillHash: hex(1, 'f') },
      { kind: 'postOrders', at: t + 4, orders: [orderOf(3)], markets: [market] },
      { kind: 'fill', at: t + 5, fillHash: hex(2, 'f'), market, taker: TAKER, baseToken: TOKEN, isTakerBettingOutcomeOne: false, stakeWei: 150n * USDC, desiredOdds: 50n * E18, oddsSlippage: 10, fillSalt: '2' },
      { kind: 'cancelOrders', at: t + 6, maker: MAKER, salt: 's1', timestamp: Math.floor((t + 6) / 1000), orderHashes: [hex(3)] },
      { kind: 'confirmFill', at: t + 7, fillHash: hex(2, 'f') },
    ];
    // The first half as an earlier release wrote them, the rest through the journal.
    const insertV1 = db.prepare('INSERT INTO journal (at_ms, command) VALUES (?, ?)');
    commands.forEach((cmd, i) => {
      live.apply(cmd);
      if (i < 5) insertV1.run(cmd.at, encodeJson(cmd));
      else journal.append(cmd, []);
    });
    const rows = db.prepare('SELECT command FROM journal ORDER BY seq').all() as { command: string }[];
    expect(rows.map((r) => r.command[0])).toEqual(['{', '{', '{', '{', '{', '2', '2', '2', '2']);

    const replayed = new Engine(params);
    const read = [...journal.replay()];
    expect(read.map((r) => r.cmd)).toStrictEqual(commands);
    for (const { cmd } of read) replayed.apply(cmd);
    expect(replayed.snapshot()).toStrictEqual(live.snapshot());
    expect(replayed.balances(TAKER)).toEqual(live.balances(TAKER));
  });
});

// Validation failures name the field and the rule they broke (DECISIONS.md: `details`), whether the route's schema or
// its own parsing refused the value; a choice of constants lists the allowed values once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestExchange, type TestExchange } from './helpers/server.js';

const BETTOR = '0x8ba1f109551bd432803012645ac136ddd64dba72';
const list = (n: number, item: (i: number) => string) => Array.from({ length: n }, (_, i) => item(i)).join(',');
const hashes = (n: number) => list(n, (i) => '0x' + i.toString(16).padStart(64, '0'));

describe('validation details', () => {
  let ex: TestExchange;
  beforeAll(async () => {
    ex = await startTestExchange();
  });
  afterAll(async () => ex.destroy());
  /** The exchange's base token, as a client reads it. */
  const baseToken = async () => {
    const { addresses } = (await ex.get('/metadata')).body.data as { addresses: Record<string, Record<string, string>> };
    return Object.values(Object.values(addresses)[0]!)[0]!;
  };

  it.each([
    ['/markets/active?type=abc', 'type', 'pattern', 'type has an invalid item "abc"'],
    ['/markets/active?type=2&betGroup=1X2', 'betGroup', 'not', 'betGroup and type are mutually exclusive: send one of them'],
    ['/markets/active?betGroup=nope', 'betGroup', 'enum', 'betGroup must be one of 1X2, game-lines'],
    ['/markets/active?sportIds=a,b', 'sportIds', 'pattern', 'sportIds has an invalid item "a"'],
    [`/live-scores?exchangeEventIds=${list(51, (i) => `e${i}`)}`, 'exchangeEventIds', 'maxItems', 'exchangeEventIds takes at most 50 items'],
    [`/trades/orders?orderHashes=${hashes(101)}`, 'orderHashes', 'maxItems', 'orderHashes takes at most 100 items'],
    ['/orders?marketHashes=0x12', 'marketHashes', 'pattern', 'marketHashes has an invalid item "0x12"'],
    // A list of 101 hashes is refused for its count, not for the length of its text.
    [`/orders/odds/best?baseToken=BASE&marketHashes=${hashes(101)}`, 'marketHashes', 'maxItems', 'marketHashes takes at most 100 items'],
    [`/orders?marketHashes=${hashes(101)}`, 'marketHashes', 'maxItems', 'marketHashes takes at most 100 items'],
    [`/trades?marketHashes=${hashes(101)}`, 'marketHashes', 'maxItems', 'marketHashes takes at most 100 items'],
    [`/trades?bettor=${BETTOR}&tradeStatus=success`, 'tradeStatus', 'enum', 'tradeStatus must be one of PENDING, SUCCESS, FAILED'],
  ])('case %#: the refusal names the field and the rule it broke', async (path, field, rule, message) => {
    const res = await ex.get(path.replace('BASE', await baseToken()));
    expect([res.status, res.body]).toEqual([400, { status: 'failure', errorCode: 'INVALID_PARAMETER', message: expect.stringContaining(message), details: [{ field, rule, message }] }]);
  });

  it.each(['/markets/active?paginationKey=zzz', `/trades?bettor=${BETTOR}&paginationKey=zzz`])('refuses a paginationKey it did not hand out with its own code, naming the field: %s', async (path) => {
    const message = 'paginationKey is not a nextKey this server returned';
    const res = await ex.get(path);
    expect([res.status, res.body]).toEqual([
      400,
      { status: 'failure', errorCode: 'INVALID_PAGINATION_KEY', message, details: [{ field: 'paginationKey', rule: 'format', message }] },
    ]);
  });

  it.each(['/orders/odds/best?baseToken=BASE&marketHashes=', '/orders?marketHashes=', '/trades?marketHashes=', '/trades/orders?orderHashes='])('GET %s takes 100 hashes', async (path) => {
    const res = await ex.get(path.replace('BASE', await baseToken()) + hashes(100));
    expect([res.status, res.body.status]).toEqual([200, 'success']);
  });

  // Ajv's coercion alone reads a query number as JavaScript does: `0x65` as 101, `1e2` as 100, ` 7` as 7.
  it.each([
    ['/markets/active?leagueId=0x65', 'leagueId', 'integer'],
    ['/markets/active?pageSize=1e1', 'pageSize', 'integer'],
    ['/markets/active?pageSize=%2010', 'pageSize', 'integer'],
    ['/markets/active?gameTime=%2B1', 'gameTime', 'integer'],
    ['/teams?pageSize=0x10', 'pageSize', 'integer'],
    [`/trades?bettor=${BETTOR}&startDate=1.7e9`, 'startDate', 'integer'],
  ])('GET %s is refused: a query integer is a plain decimal', async (path, field, type) => {
    const res = await ex.get(path);
    const message = `${field} must be ${type}`;
    expect([res.status, res.body]).toEqual([400, { status: 'failure', errorCode: 'INVALID_PARAMETER', message: `querystring ${message}`, details: [{ field, rule: 'type', message }] }]);
  });

  it.each(['/markets/active?leagueId=101&pageSize=007', '/teams?page=0&pageSize=20'])('GET %s takes decimal integers', async (path) => {
    expect((await ex.get(path)).status).toBe(200);
  });

  it.each(['text/plain', 'application/xml'])('a %s body is refused for its type, with the one to send', async (type) => {
    const res = await fetch(`${ex.url}/orders/new`, { method: 'POST', headers: { 'content-type': type }, body: '{"orders":[]}' });
    expect([res.status, await res.json()]).toEqual([415, { status: 'failure', errorCode: 'UNSUPPORTED_MEDIA_TYPE', message: 'send request bodies as application/json' }]);
  });

  it('a bad Oddex-Min-Position header names the header', async () => {
    const res = await ex.get(`/orders?maker=${BETTOR}`, { 'oddex-min-position': 'x' });
    const message = 'oddex-min-position must be a journal position (a non-negative integer)';
    expect([res.status, res.body]).toEqual([400, { status: 'failure', errorCode: 'INVALID_PARAMETER', message, details: [{ field: 'oddex-min-position', rule: 'pattern', message }] }]);
  });

  // Refusals with a code of their own (not INVALID_PARAMETER) name the field and the rule too.
  it.each([
    ['/markets/find', 'BAD_MARKET_HASHES', 'marketHashes', 'required', 'marketHashes is required: a comma-separated list of market hashes'],
    ['/trades', 'MISSING_SCOPE_FILTER', 'bettor', 'anyOf', 'one of bettor, marketHashes, exchangeEventId or startDate is required'],
    ['/orders', 'MISSING_FILTER', 'marketHashes', 'anyOf', 'one of marketHashes, maker or orderHashes is required'],
    [`/orders?marketHashes=${hashes(1)}&exchangeEventId=e1`, 'CONFLICTING_FILTERS', 'exchangeEventId', 'not', 'marketHashes and exchangeEventId cannot be combined'],
    ['/orders/odds/best?baseToken=BASE', 'EXACTLY_ONE_OF', 'marketHashes', 'oneOf', 'send exactly one of marketHashes and leagueIds'],
    [`/orders/odds/best?baseToken=${BETTOR}&marketHashes=${hashes(1)}`, 'INVALID_BASE_TOKEN', 'baseToken', 'const', 'baseToken must be the base token BASE'],
    [
      `/trades/consolidated?bettor=${BETTOR}&settled=false&page=0&perPage=10&sortAsc=true&hideQuarterLineParents=true&hideQuarterLineLegs=true`,
      'CONFLICTING_FILTERS',
      'hideQuarterLineLegs',
      'not',
      'hideQuarterLineParents and hideQuarterLineLegs cannot both be true',
    ],
  ])('GET %s: %s names the field and the rule', async (path, errorCode, field, rule, text) => {
    const token = await baseToken();
    const message = text.replace('BASE', token);
    const res = await ex.get(path.replace('BASE', token));
    expect([res.status, res.body]).toEqual([400, { status: 'failure', errorCode, message, details: [{ field, rule, message }] }]);
  });

  it('an order off the odds ladder is refused naming the order and field', async () => {
    const order = {
      marketHash: hashes(1),
      maker: BETTOR,
      totalBetSize: '10000000',
      percentageOdds: '50000000000000000001',
      baseToken: await baseToken(),
      apiExpiry: 2_000_000_000,
      expiry: 2_209_006_800,
      executor: BETTOR,
      salt: '1',
      isMakerBettingOutcomeOne: true,
      signature: '0x' + '11'.repeat(65),
    };
    const res = await ex.post('/orders/new', { orders: [order] });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ errorCode: 'INVALID_ODDS', details: [{ field: 'orders[0].percentageOdds', rule: 'multipleOf' }] });
  });

  it('the operator\'s fee report names the bad date', async () => {
    const res = await ex.admin('GET', '/admin/fees?from=2026-02-30&to=2026-03-10');
    const message = 'from and to are UTC days, YYYY-MM-DD';
    expect([res.status, res.body]).toEqual([400, { status: 'failure', errorCode: 'INVALID_DATE_RANGE', message, details: [{ field: 'from', rule: 'format', message }] }]);
  });

  it('a body that is not an object, or lacks a field, is named once, in plain words', async () => {
    const notObject = await ex.post('/orders/new', [1]);
    expect([notObject.status, notObject.body]).toEqual([
      400,
      { status: 'failure', errorCode: 'INVALID_PARAMETER', message: 'body must be object', details: [{ field: 'body', rule: 'type', message: 'body must be object' }] },
    ]);
    const missing = await ex.post('/orders/new', {});
    expect([missing.status, missing.body]).toEqual([
      400,
      { status: 'failure', errorCode: 'INVALID_PARAMETER', message: 'body orders is required', details: [{ field: 'orders', rule: 'required', message: 'orders is required' }] },
    ]);
  });
});

// Validation failures name the field and the rule they broke (DECISIONS.md: `details`), whether the route's schema or
// its own parsing refused the value; a choice of constants lists the allowed values once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestExchange, type TestExchange } from './helpers/server.js';

const BETTOR = '0x8ba1f109551bd432803012645ac136ddd64dba72';
const list = (n: number, item: (i: number) => string) => Array.from({ length: n }, (_, i) => item(i)).join(',');

describe('validation details', () => {
  let ex: TestExchange;
  beforeAll(async () => {
    ex = await startTestExchange();
  });
  afterAll(async () => ex.destroy());

  it.each([
    ['/markets/active?type=abc', 'type', 'pattern', 'type has an invalid item "abc"'],
    ['/markets/active?type=2&betGroup=1X2', 'betGroup', 'not', 'betGroup and type are mutually exclusive: send one of them'],
    ['/markets/active?betGroup=nope', 'betGroup', 'enum', 'betGroup must be one of 1X2, game-lines'],
    ['/markets/active?paginationKey=zzz', 'paginationKey', 'format', 'paginationKey is not a nextKey this server returned'],
    ['/markets/active?sportIds=a,b', 'sportIds', 'pattern', 'sportIds has an invalid item "a"'],
    [`/live-scores?exchangeEventIds=${list(51, (i) => `e${i}`)}`, 'exchangeEventIds', 'maxItems', 'exchangeEventIds takes at most 50 items'],
    [`/trades/orders?orderHashes=${list(101, (i) => '0x' + i.toString(16).padStart(64, '0'))}`, 'orderHashes', 'maxItems', 'orderHashes takes at most 100 items'],
    ['/orders?marketHashes=0x12', 'marketHashes', 'pattern', 'marketHashes has an invalid item "0x12"'],
    [`/trades?bettor=${BETTOR}&tradeStatus=success`, 'tradeStatus', 'enum', 'tradeStatus must be one of PENDING, SUCCESS, FAILED'],
  ])('GET %s names %s and its rule %s', async (path, field, rule, message) => {
    const res = await ex.get(path);
    expect([res.status, res.body]).toEqual([400, { status: 'failure', errorCode: 'INVALID_PARAMETER', message: expect.stringContaining(message), details: [{ field, rule, message }] }]);
  });

  it('a bad Oddex-Min-Position header names the header', async () => {
    const res = await ex.get(`/orders?maker=${BETTOR}`, { 'oddex-min-position': 'x' });
    const message = 'oddex-min-position must be a journal position (a non-negative integer)';
    expect([res.status, res.body]).toEqual([400, { status: 'failure', errorCode: 'INVALID_PARAMETER', message, details: [{ field: 'oddex-min-position', rule: 'pattern', message }] }]);
  });
});

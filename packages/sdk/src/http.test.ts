// The HTTP transport's retries of 429 and 503 answers: after the exchange's Retry-After, never sooner.
import { describe, expect, it } from 'vitest';
import { OddexApiError } from './errors.js';
import { HttpTransport } from './http.js';

/** A fetch that answers 429 with `retryAfter` seconds until `refusals` answers were given, then 200. */
function limitedFetch(retryAfter: string, refusals: number) {
  const calls: number[] = [];
  const fetch = async () => {
    calls.push(Date.now());
    if (calls.length <= refusals) {
      return new Response(JSON.stringify({ status: 'failure', errorCode: 'RATE_LIMITED', message: 'slow down' }), { status: 429, headers: { 'retry-after': retryAfter } });
    }
    return new Response(JSON.stringify({ status: 'success', data: { ok: true } }), { status: 200 });
  };
  return { calls, fetch };
}

describe('HttpTransport retries', () => {
  it('raises a 429 whose Retry-After is longer than maxDelayMs at once, with the wait, instead of retrying sooner', async () => {
    const { calls, fetch } = limitedFetch('19', 5);
    const http = new HttpTransport({ baseUrl: 'http://exchange.test', fetch, retry: { attempts: 4, baseDelayMs: 10, maxDelayMs: 5_000 } });
    const err = (await http.request('POST', '/orders/fill/v2', { body: {} }).catch((e: unknown) => e)) as OddexApiError;
    expect(err).toBeInstanceOf(OddexApiError);
    expect([err.errorCode, err.status, err.retryAfterMs]).toEqual(['RATE_LIMITED', 429, 19_000]);
    expect(calls).toHaveLength(1);
  });

  it('retries a 429 after its Retry-After when that is within maxDelayMs', async () => {
    const { calls, fetch } = limitedFetch('1', 1);
    const http = new HttpTransport({ baseUrl: 'http://exchange.test', fetch, retry: { attempts: 4, baseDelayMs: 10, maxDelayMs: 5_000 } });
    expect(await http.request('GET', '/sports')).toEqual({ ok: true });
    expect(calls).toHaveLength(2);
    expect(calls[1]! - calls[0]!).toBeGreaterThanOrEqual(990);
  });
});

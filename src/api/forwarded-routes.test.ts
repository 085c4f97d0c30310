// Which routes a gateway forwards to the sequencer's process: the ones it cannot answer, and none it can.
import { describe, expect, it } from 'vitest';
import { isForwardedRoute } from './forwarded-routes.js';

describe('isForwardedRoute', () => {
  it.each([
    ['POST', '/admin/faucet', true],
    ['GET', '/admin/accounts/:address', true],
    ['POST', '/admin/*', true],
    ['POST', '/admin/api-keys', false],
    ['DELETE', '/admin/api-keys/:id', false],
    ['POST', '/parlays/request', true],
    ['GET', '/orders/odds/best', true],
    ['HEAD', '/orders/odds/best', true],
    ['GET', '/cashout/quote', true],
    ['GET', '/orders', false],
    ['POST', '/orders/new', false],
    ['POST', '/orders/fill/v2', false],
    ['GET', '/trades', false],
    ['GET', '/metadata', false],
    ['GET', undefined, false],
  ] as const)('%s %s: %s', (method, route, forwarded) => {
    expect(isForwardedRoute(method, route)).toBe(forwarded);
  });
});

import { describe, expect, it } from 'vitest';
import { BUCKET_ROUTES, classifyRoute, EXEMPT } from './buckets.js';

describe('classifyRoute (spec section 8 table)', () => {
  it.each([
    ['POST', '/orders/new', 'orderOps'],
    ['POST', '/orders/cancel/v2', 'orderOps'],
    ['POST', '/orders/cancel/event', 'orderOps'],
    ['POST', '/orders/cancel/all', 'orderOps'],
    ['POST', '/orders/replace', 'orderOps'],
    ['POST', '/orders/fill/v2', 'orderOps'],
    ['GET', '/orders', 'orderReads'],
    ['GET', '/orders/odds/best', 'orderReads'],
    ['GET', '/trades', 'trades'],
    ['GET', '/trades/consolidated', 'trades'],
    ['GET', '/trades/orders', 'trades'],
    ['GET', '/trades/portfolio/refunds', 'trades'],
  ])('%s %s draws on %s', (method, url, bucket) => {
    expect(classifyRoute(method, url)).toBe(bucket);
  });

  it('lists exactly the 11 routes of the spec and POST /orders/replace in the shared buckets', () => {
    expect(Object.values(BUCKET_ROUTES).flat()).toHaveLength(12);
  });

  it('counts HEAD like the GET it mirrors', () => {
    expect(classifyRoute('HEAD', '/trades')).toBe('trades');
    expect(classifyRoute('HEAD', '/orders/odds/best')).toBe('orderReads');
  });

  it('puts another method on a bucketed path in base (the route differs)', () => {
    expect(classifyRoute('GET', '/orders/new')).toBe('base');
    expect(classifyRoute('POST', '/orders')).toBe('base');
    expect(classifyRoute('DELETE', '/trades')).toBe('base');
  });

  it('puts every other endpoint, and unknown routes (no pattern), in base', () => {
    for (const url of ['/markets/active', '/markets/find', '/metadata', '/sports', '/balances/:address', '/heartbeat']) {
      expect(classifyRoute('GET', url)).toBe('base');
    }
    expect(classifyRoute('POST', '/heartbeat')).toBe('base');
    expect(classifyRoute('GET', '/user/realtime-token/api-key')).toBe('base');
    expect(classifyRoute('GET', undefined)).toBe('base');
    expect(classifyRoute('POST', undefined)).toBe('base');
  });

  it('exempts probes, metrics, docs, the OpenAPI document, the realtime endpoint and the operator API', () => {
    for (const url of [
      '/health',
      '/health/live',
      '/health/ready',
      '/metrics',
      '/docs',
      '/docs/',
      '/docs/static/*',
      '/docs/json',
      '/openapi.json',
      '/connection/websocket',
      '/admin/api-keys',
      '/admin/api-keys/:id',
      '/admin/faucet',
    ]) {
      expect(classifyRoute('GET', url)).toBe(EXEMPT);
      expect(classifyRoute('POST', url)).toBe(EXEMPT);
    }
  });

  it('does not exempt look-alike patterns', () => {
    expect(classifyRoute('GET', '/healthz')).toBe('base');
    expect(classifyRoute('GET', '/admin')).toBe('base');
    expect(classifyRoute('GET', '/metrics/extra')).toBe('base');
    expect(classifyRoute('GET', '/openapi.yaml')).toBe('base');
  });
});

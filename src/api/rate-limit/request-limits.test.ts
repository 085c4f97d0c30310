import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../config.js';
import { slowClientLimits } from './request-limits.js';

describe('slowClientLimits', () => {
  it('maps the configured timeouts onto Fastify and Node, checking at a quarter of the headers timeout', () => {
    expect(slowClientLimits(defaultConfig())).toEqual({
      requestTimeout: 30_000,
      connectionTimeout: 60_000,
      http: { headersTimeout: 10_000, requestTimeout: 30_000, connectionsCheckingInterval: 2500 },
    });
  });

  it('never lets headers take longer than the whole request (Node refuses that)', () => {
    const config = { ...defaultConfig(), requestTimeoutMs: 600, headersTimeoutMs: 5000 };
    expect(slowClientLimits(config).http).toEqual({ headersTimeout: 600, requestTimeout: 600, connectionsCheckingInterval: 150 });
  });

  it('keeps the checking interval within 10 ms .. 30 s', () => {
    expect(slowClientLimits({ ...defaultConfig(), headersTimeoutMs: 20 }).http.connectionsCheckingInterval).toBe(10);
    const slow = { ...defaultConfig(), requestTimeoutMs: 3_600_000, headersTimeoutMs: 3_600_000 };
    expect(slowClientLimits(slow).http.connectionsCheckingInterval).toBe(30_000);
  });
});

import { describe, expect, it } from 'vitest';
import { apiKeyFingerprint, clientKeyOf } from './client-key.js';

describe('client keys', () => {
  it('keys by a fingerprint of X-Api-Key when sent, else by the address', () => {
    expect(clientKeyOf('key-1', '10.0.0.1')).toBe(apiKeyFingerprint('key-1'));
    expect(clientKeyOf('key-1', '10.0.0.2')).toBe(apiKeyFingerprint('key-1'));
    expect(clientKeyOf(undefined, '10.0.0.1')).toBe('10.0.0.1');
    expect(clientKeyOf('', '10.0.0.1')).toBe('10.0.0.1');
    expect(clientKeyOf(['a', 'b'], '10.0.0.1')).toBe('10.0.0.1');
  });

  it('is a deterministic safe integer that does not contain the key', () => {
    const f = apiKeyFingerprint('0123456789abcdefghijklmnopqrstuv');
    expect(f).toBe(apiKeyFingerprint('0123456789abcdefghijklmnopqrstuv'));
    expect(Number.isSafeInteger(f)).toBe(true);
    expect(f).toBeGreaterThanOrEqual(0);
  });

  it('spreads 200,000 similar keys without a collision', () => {
    const seen = new Set<number>();
    for (let i = 0; i < 100_000; i++) {
      seen.add(apiKeyFingerprint(`key-${i}`));
      seen.add(apiKeyFingerprint(`kex-${i}`)); // one character apart from the first family
    }
    expect(seen.size).toBe(200_000);
  });

  it('tells apart keys that differ only in length or order', () => {
    expect(apiKeyFingerprint('ab')).not.toBe(apiKeyFingerprint('ba'));
    expect(apiKeyFingerprint('a')).not.toBe(apiKeyFingerprint('a\u0000'));
    expect(apiKeyFingerprint('')).not.toBe(apiKeyFingerprint('\u0000'));
  });
});

import { describe, expect, it } from 'vitest';
import { decodeJson, encodeJson } from './json-codec.js';

describe('JSON with bigints', () => {
  it('round-trips bigints anywhere, and leaves objects that only look like tags alone', () => {
    const value = {
      a: 1n,
      b: [-(2n ** 130n), 0n, { c: 12345678901234567890n, d: 'x' }],
      notATag: { $n: '5', other: 1 },
      numericTag: { $n: 5 },
      nested: [[{ deep: [7n] }]],
      nothing: null,
      text: '{"$n":"1"}',
    };
    const text = encodeJson(value);
    expect(text).toContain('{"$n":"12345678901234567890"}');
    expect(decodeJson(text)).toEqual(value);
  });

  it('decodes what the former reviver-based decoder decoded', () => {
    const text = '{"cmd":{"kind":"faucet","amount":{"$n":"1000000"},"list":[{"$n":"-3"},{"$n":"4","x":1}]}}';
    const revived = JSON.parse(text, (_k, v: unknown) =>
      v !== null && typeof v === 'object' && '$n' in v && Object.keys(v).length === 1 ? BigInt((v as { $n: string }).$n) : v,
    );
    expect(decodeJson(text)).toEqual(revived);
  });
});

// JSON with bigints, tagged as {"$n": "..."}: the encoding of journal commands and engine snapshots.
export const encodeJson = (value: unknown): string =>
  JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? { $n: v.toString() } : v));

/**
 * Parses, then turns tags back into bigints in one walk over the result. (A JSON.parse reviver does the same but
 * costs about 5x: it is called for every value with a key string; a 19 MB snapshot took 1.6 s instead of 0.33 s.)
 */
export const decodeJson = <T>(text: string): T => untag(JSON.parse(text)) as T;

function untag(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const u = untag(v[i]);
      if (u !== v[i]) v[i] = u;
    }
    return v;
  }
  const o = v as Record<string, unknown>;
  if (typeof o.$n === 'string' && isSingleKey(o)) return BigInt(o.$n);
  // Objects are untagged in place: only a tag is ever replaced (never an own "__proto__" key's object).
  for (const k in o) {
    const u = untag(o[k]);
    if (u !== o[k]) o[k] = u;
  }
  return o;
}

function isSingleKey(o: Record<string, unknown>): boolean {
  let n = 0;
  for (const _ in o) if (++n > 1) return false;
  return n === 1;
}

// JSON with bigints, tagged as {"$n": "..."}: the encoding of journal commands and engine snapshots.
export const encodeJson = (value: unknown): string =>
  JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? { $n: v.toString() } : v));

export const decodeJson = <T>(text: string): T =>
  JSON.parse(text, (_k, v: unknown) =>
    v !== null && typeof v === 'object' && '$n' in v && Object.keys(v).length === 1 ? BigInt((v as { $n: string }).$n) : v,
  ) as T;

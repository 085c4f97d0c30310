// What the CLI prints: aligned tables for people, JSON for scripts (bigint as decimal strings).

export const toJson = (value: unknown): string =>
  JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v), 2);

export type Row = Record<string, string | number | boolean | bigint | null | undefined>;

/** Columns padded to their widest cell; numbers right-aligned. */
export function table(rows: readonly Row[], columns?: readonly string[]): string {
  if (rows.length === 0) return '(none)';
  const cols = columns ?? Object.keys(rows[0]!);
  const cell = (v: Row[string]) => (v === undefined || v === null ? '' : String(v));
  const widths = cols.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const numeric = cols.map((c) => rows.every((r) => r[c] === undefined || typeof r[c] === 'number' || typeof r[c] === 'bigint'));
  const line = (values: string[]) =>
    values.map((v, i) => (numeric[i] ? v.padStart(widths[i]!) : v.padEnd(widths[i]!))).join('  ').trimEnd();
  return [line([...cols]), line(widths.map((w) => '-'.repeat(w))), ...rows.map((r) => line(cols.map((c) => cell(r[c]))))].join('\n');
}

/** Key: value lines of one record. */
export function record(r: Row): string {
  const width = Math.max(...Object.keys(r).map((k) => k.length));
  return Object.entries(r)
    .map(([k, v]) => `${k.padEnd(width)}  ${v === undefined || v === null ? '' : String(v)}`)
    .join('\n');
}

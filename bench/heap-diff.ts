// Compares two V8 heap snapshots (e.g. the soak server's at 10k and 100k fills, `bench/soak.ts --heap-snapshots`):
// objects grouped by kind and constructor, with count and self size in each, largest growth first, and for the
// groups that grew most, who holds them (the holder's group and the edge name). Live state that grows with
// history shows up here as a group whose count rises with the fills.
// Usage: node --max-old-space-size=4096 --import tsx bench/heap-diff.ts <before.heapsnapshot> <after.heapsnapshot> [top=25]
import { readFileSync } from 'node:fs';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] } };
  nodes: number[];
  edges: number[];
  strings: string[];
}

interface Group {
  count: number;
  bytes: number;
}

/** A node's group: its kind, and for objects and closures the constructor or function name. */
function groupsOf(path: string) {
  const s = JSON.parse(readFileSync(path, 'utf8')) as Snapshot;
  const nf = s.snapshot.meta.node_fields;
  const width = nf.length;
  const [typeAt, nameAt, sizeAt, edgeCountAt] = ['type', 'name', 'self_size', 'edge_count'].map((f) => nf.indexOf(f));
  const types = s.snapshot.meta.node_types[0];
  const groupOf = (n: number): string => {
    const type = types[s.nodes[n + typeAt!]!]!;
    if (type === 'object' || type === 'closure' || type === 'native' || type === 'hidden') return `${type}:${s.strings[s.nodes[n + nameAt!]!]}`;
    return `(${type})`;
  };
  const groups = new Map<string, Group>();
  for (let n = 0; n < s.nodes.length; n += width) {
    const key = groupOf(n);
    const g = groups.get(key) ?? { count: 0, bytes: 0 };
    g.count++;
    g.bytes += s.nodes[n + sizeAt!]!;
    groups.set(key, g);
  }
  /** For the given groups, the commonest (holder group, edge name) pairs pointing at their members. */
  const holders = (wanted: Set<string>, top: number): Map<string, [string, number][]> => {
    const ef = s.snapshot.meta.edge_fields;
    const ew = ef.length;
    const [edgeTypeAt, edgeNameAt, toAt] = ['type', 'name_or_index', 'to_node'].map((f) => ef.indexOf(f));
    const edgeTypes = s.snapshot.meta.edge_types[0];
    const tally = new Map<string, Map<string, number>>();
    let edge = 0;
    for (let n = 0; n < s.nodes.length; n += width) {
      const from = groupOf(n);
      const count = s.nodes[n + edgeCountAt!]!;
      for (let i = 0; i < count; i++, edge += ew) {
        const edgeType = edgeTypes[s.edges[edge + edgeTypeAt!]!]!;
        if (edgeType === 'weak') continue;
        const target = groupOf(s.edges[edge + toAt!]!);
        if (!wanted.has(target)) continue;
        const raw = s.edges[edge + edgeNameAt!]!;
        const name = edgeType === 'element' || edgeType === 'hidden' ? `[${edgeType}]` : s.strings[raw];
        const key = `${from} .${name}`;
        const perTarget = tally.get(target) ?? new Map<string, number>();
        perTarget.set(key, (perTarget.get(key) ?? 0) + 1);
        tally.set(target, perTarget);
      }
    }
    return new Map([...tally].map(([target, m]) => [target, [...m].sort((a, b) => b[1] - a[1]).slice(0, top)]));
  };
  return { groups, holders };
}

const [beforePath, afterPath, topArg] = process.argv.slice(2);
if (!beforePath || !afterPath) throw new Error('usage: heap-diff.ts <before.heapsnapshot> <after.heapsnapshot> [top]');
const top = Number(topArg ?? 25);
const before = groupsOf(beforePath).groups;
const after = groupsOf(afterPath);
const total = (m: Map<string, Group>) => [...m.values()].reduce((a, g) => ({ count: a.count + g.count, bytes: a.bytes + g.bytes }), { count: 0, bytes: 0 });
const kb = (b: number) => `${(b / 1024).toFixed(0)} KB`;
const [tb, ta] = [total(before), total(after.groups)];
console.log(`live heap: ${kb(tb.bytes)} in ${tb.count} objects -> ${kb(ta.bytes)} in ${ta.count} objects`);
const rows = [...new Set([...before.keys(), ...after.groups.keys()])].map((key) => {
  const b = before.get(key) ?? { count: 0, bytes: 0 };
  const a = after.groups.get(key) ?? { count: 0, bytes: 0 };
  return { key, b, a, grew: a.bytes - b.bytes };
});
rows.sort((x, y) => y.grew - x.grew || y.a.bytes - x.a.bytes);
console.log('group | count before -> after | self size before -> after');
for (const r of rows.slice(0, top)) console.log(`${r.key} | ${r.b.count} -> ${r.a.count} | ${kb(r.b.bytes)} -> ${kb(r.a.bytes)}`);
const grown = rows.slice(0, Math.min(8, top)).filter((r) => r.a.count > r.b.count);
const held = after.holders(new Set(grown.map((r) => r.key)), 5);
for (const r of grown) {
  console.log(`held (after) ${r.key}:`);
  for (const [holder, n] of held.get(r.key) ?? []) console.log(`  ${n} x ${holder}`);
}

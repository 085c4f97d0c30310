// A bounded memo for pure functions of values that repeat across requests (market hashes, token and
// maker addresses, domains). When full it starts over: no eviction bookkeeping on the hot path, and
// memory stays bounded whatever clients send. Values are shared, so callers must not mutate them.
export function boundedMemo<A, V, K = A>(compute: (arg: A) => V, maxEntries: number, keyOf?: (arg: A) => K): (arg: A) => V {
  const entries = new Map<K | A, V>();
  return (arg: A): V => {
    const key = keyOf ? keyOf(arg) : arg;
    let value = entries.get(key);
    if (value === undefined) {
      if (entries.size >= maxEntries) entries.clear();
      value = compute(arg);
      entries.set(key, value);
    }
    return value;
  };
}

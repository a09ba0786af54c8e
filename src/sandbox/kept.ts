// The emulator's bounded memos (decoded store values, rendered answer bodies, parsed request targets, presented tokens'
// store keys): a Map that keeps at most so many entries, the oldest dropped first (a Map iterates in insertion order).

/** Sets `key` to `value` in `map`, first dropping the oldest entry when a new key would take it past `max`. */
export function keepAtMost<K, V>(map: Map<K, V>, max: number, key: K, value: V): void {
  if (map.size >= max && !map.has(key)) map.delete(map.keys().next().value as K);
  map.set(key, value);
}

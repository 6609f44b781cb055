// A function of a string remembered, boundedly (started afresh when full): matching compares one
// installed version against every version an advisory lists and scores the same few CVSS vectors
// again and again. Callers must not change what they get back.
export function memoized<T>(compute: (key: string) => T, size = 20_000): (key: string) => T {
  const remembered = new Map<string, T>();
  return (key) => {
    let value = remembered.get(key);
    if (value === undefined) {
      if (remembered.size >= size) remembered.clear();
      value = compute(key);
      remembered.set(key, value);
    }
    return value;
  };
}

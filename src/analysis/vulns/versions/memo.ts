// Parsed versions remembered: matching compares one installed version against every version an
// advisory lists (hundreds for a popular Maven artifact), so the same strings are parsed again and
// again. Bounded; callers must not change what they get back.
export function memoized<T>(parse: (version: string) => T, size = 20_000): (version: string) => T {
  const parsed = new Map<string, T>();
  return (version) => {
    let value = parsed.get(version);
    if (value === undefined) {
      if (parsed.size >= size) parsed.clear();
      value = parse(version);
      parsed.set(version, value);
    }
    return value;
  };
}

// Shared helpers: version components are compared as digit strings so that numbers past 2^53 stay exact.

/** Compares two strings of ASCII digits by numeric value, leading zeros ignored. */
export function compareDigits(a: string, b: string): number {
  let i = 0;
  while (i < a.length - 1 && a.charCodeAt(i) === 48) i++;
  let j = 0;
  while (j < b.length - 1 && b.charCodeAt(j) === 48) j++;
  const la = a.length - i;
  const lb = b.length - j;
  if (la !== lb) return la < lb ? -1 : 1;
  for (; i < a.length; i++, j++) {
    const d = a.charCodeAt(i) - b.charCodeAt(j);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return 0;
}

/** Compares two strings by UTF-16 code units, as Go's strings.Compare does for ASCII. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Whether a string is one or more ASCII digits. */
export function isDigits(s: string): boolean {
  return /^[0-9]+$/.test(s);
}

/** Whether a string holds a run of digits too long for a double to keep exact. */
export function hasHugeNumber(s: string): boolean {
  return /[0-9]{16}/.test(s);
}

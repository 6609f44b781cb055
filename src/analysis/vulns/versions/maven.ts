// Maven's ComparableVersion (maven-artifact), which OSV uses for the Maven ecosystem: a version is a
// list of items (numbers, qualifiers, sub-lists after `-`), trailing "null" items trimmed; qualifiers
// order alpha < beta < milestone < rc < snapshot < "" (release) < sp, unknown ones after, as text.
import { compareDigits } from './digits';

type Item = { kind: 'int'; value: string } | { kind: 'str'; value: string } | { kind: 'list'; items: Item[] };

const QUALIFIERS = ['alpha', 'beta', 'milestone', 'rc', 'snapshot', '', 'sp'];
const ALIASES: Record<string, string> = { ga: '', final: '', release: '', cr: 'rc' };

/** A qualifier's sort key: its position among the known ones, else after them all, then by text. */
function qualifierKey(value: string): string {
  const i = QUALIFIERS.indexOf(value);
  return i >= 0 ? String(i) : `${QUALIFIERS.length}-${value}`;
}

function stringItem(value: string, followedByDigit: boolean): Item {
  let v = value;
  if (followedByDigit && v.length === 1) v = v === 'a' ? 'alpha' : v === 'b' ? 'beta' : v === 'm' ? 'milestone' : v;
  return { kind: 'str', value: ALIASES[v] ?? v };
}

const isNull = (item: Item): boolean =>
  item.kind === 'int' ? /^0+$/.test(item.value) : item.kind === 'str' ? qualifierKey(item.value) === qualifierKey('') : item.items.length === 0;

/** Drops trailing null items of a list (and null items before a `-` sub-list), as ComparableVersion's normalize. */
function normalize(list: Item[]): void {
  for (let i = list.length - 1; i >= 0; i--) {
    const item = list[i]!;
    if (isNull(item)) list.splice(i, 1);
    else if (item.kind !== 'list') break;
  }
}

function parse(version: string): Item[] {
  const v = version.toLowerCase();
  const root: Item[] = [];
  let list = root;
  const stack: Item[][] = [root];
  let start = 0;
  let isDigit = false;
  const push = (token: string, digitNext: boolean) => {
    if (isDigit) list.push({ kind: 'int', value: token.replace(/^0+(?=\d)/, '') });
    else list.push(stringItem(token, digitNext));
  };
  for (let i = 0; i < v.length; i++) {
    const c = v[i]!;
    if (c === '.') {
      if (i === start) list.push({ kind: 'int', value: '0' });
      else push(v.slice(start, i), false);
      start = i + 1;
    } else if (c === '-') {
      if (i === start) list.push({ kind: 'int', value: '0' });
      else push(v.slice(start, i), false);
      start = i + 1;
      const sub: Item[] = [];
      list.push({ kind: 'list', items: sub });
      list = sub;
      stack.push(sub);
    } else if (c >= '0' && c <= '9') {
      if (!isDigit && i > start) {
        // a letter-to-digit transition starts a new sub-list (e.g. "1.0alpha1" -> 1.0, alpha, [1])
        list.push(stringItem(v.slice(start, i), true));
        start = i;
        const sub: Item[] = [];
        list.push({ kind: 'list', items: sub });
        list = sub;
        stack.push(sub);
      }
      isDigit = true;
    } else {
      if (isDigit && i > start) {
        push(v.slice(start, i), true);
        start = i;
        const sub: Item[] = [];
        list.push({ kind: 'list', items: sub });
        list = sub;
        stack.push(sub);
      }
      isDigit = false;
    }
  }
  if (v.length > start) push(v.slice(start), false);
  for (let i = stack.length - 1; i >= 0; i--) normalize(stack[i]!);
  return root;
}

function compareItem(a: Item | undefined, b: Item | undefined): number {
  if (!a && !b) return 0;
  if (!a) return -compareItem(b, undefined);
  if (a.kind === 'int') {
    if (!b) return /^0+$/.test(a.value) ? 0 : 1;
    if (b.kind === 'int') return compareDigits(a.value, b.value);
    return 1; // a number is newer than a qualifier or a sub-list
  }
  if (a.kind === 'str') {
    if (!b) return Math.sign(qualifierKey(a.value).localeCompare(qualifierKey('')) || 0) === 0 ? 0 : (qualifierKey(a.value) < qualifierKey('') ? -1 : 1);
    if (b.kind === 'int' || b.kind === 'list') return -1;
    const ka = qualifierKey(a.value);
    const kb = qualifierKey(b.value);
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  }
  if (!b) {
    for (const item of a.items) {
      const d = compareItem(item, undefined);
      if (d !== 0) return d;
    }
    return 0;
  }
  if (b.kind === 'int') return -1;
  if (b.kind === 'str') return 1;
  return compareLists(a.items, b.items);
}

function compareLists(a: Item[], b: Item[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = compareItem(a[i], b[i]);
    if (d !== 0) return d;
  }
  return 0;
}

/** Maven ComparableVersion ordering. */
export function compareMaven(a: string, b: string): number {
  return compareLists(parse(a.trim()), parse(b.trim()));
}

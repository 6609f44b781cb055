// Operating-system package versions: Debian (dpkg), Red Hat family (rpmvercmp) and Alpine (apk).
// No well-kept JavaScript library covers these; each follows its tool's own algorithm.
import { compareDigits } from './digits';

// ---- Debian: [epoch:]upstream[-revision], compared part by part with dpkg's verrevcmp ----

/** dpkg's character order: `~` before everything (even the end), letters before other characters. */
function dpkgOrder(c: string | undefined): number {
  if (c === undefined) return 0;
  if (c === '~') return -1;
  if (/[0-9]/.test(c)) return 0;
  if (/[A-Za-z]/.test(c)) return c.charCodeAt(0);
  return c.charCodeAt(0) + 256;
}

function verrevcmp(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    let first = 0;
    while ((i < a.length && !/[0-9]/.test(a[i]!)) || (j < b.length && !/[0-9]/.test(b[j]!))) {
      const ac = dpkgOrder(i < a.length && !/[0-9]/.test(a[i]!) ? a[i] : undefined);
      const bc = dpkgOrder(j < b.length && !/[0-9]/.test(b[j]!) ? b[j] : undefined);
      if (ac !== bc) return ac - bc;
      i++;
      j++;
    }
    const da = /^[0-9]*/.exec(a.slice(i))![0];
    const db = /^[0-9]*/.exec(b.slice(j))![0];
    i += da.length;
    j += db.length;
    first = compareDigits(da || '0', db || '0');
    if (first) return first;
  }
  return 0;
}

function splitDebian(v: string): [string, string, string] {
  const colon = v.indexOf(':');
  const epoch = colon > 0 ? v.slice(0, colon) : '0';
  const rest = colon > 0 ? v.slice(colon + 1) : v;
  const dash = rest.lastIndexOf('-');
  return dash > 0 ? [epoch, rest.slice(0, dash), rest.slice(dash + 1)] : [epoch, rest, ''];
}

/** Debian (and Ubuntu) package versions, as `dpkg --compare-versions`. */
export function compareDebian(a: string, b: string): number {
  const [ea, ua, ra] = splitDebian(a.trim());
  const [eb, ub, rb] = splitDebian(b.trim());
  return Math.sign(compareDigits(ea, eb) || verrevcmp(ua, ub) || verrevcmp(ra, rb));
}

// ---- RPM: [epoch:]version[-release], each compared with rpmvercmp ----

function rpmvercmp(a: string, b: string): number {
  if (a === b) return 0;
  let i = 0;
  let j = 0;
  for (;;) {
    while (i < a.length && !/[A-Za-z0-9~^]/.test(a[i]!)) i++;
    while (j < b.length && !/[A-Za-z0-9~^]/.test(b[j]!)) j++;
    // `~` sorts before everything, even the end; `^` after the end but before anything else.
    if (a[i] === '~' || b[j] === '~') {
      if (a[i] !== '~') return 1;
      if (b[j] !== '~') return -1;
      i++;
      j++;
      continue;
    }
    if (a[i] === '^' || b[j] === '^') {
      if (i >= a.length) return -1;
      if (j >= b.length) return 1;
      if (a[i] !== '^') return 1;
      if (b[j] !== '^') return -1;
      i++;
      j++;
      continue;
    }
    if (i >= a.length || j >= b.length) break;
    const numeric = /[0-9]/.test(a[i]!);
    const pattern = numeric ? /^[0-9]+/ : /^[A-Za-z]+/;
    const sa = pattern.exec(a.slice(i))?.[0] ?? '';
    const sb = pattern.exec(b.slice(j))?.[0] ?? '';
    if (!sb) return numeric ? 1 : -1; // a number is newer than letters
    i += sa.length;
    j += sb.length;
    const d = numeric ? compareDigits(sa, sb) : sa < sb ? -1 : sa > sb ? 1 : 0;
    if (d) return d;
  }
  if (i >= a.length && j >= b.length) return 0;
  return i >= a.length ? -1 : 1;
}

function splitRpm(v: string): [string, string, string] {
  const colon = v.indexOf(':');
  const epoch = colon > 0 ? v.slice(0, colon) : '0';
  const rest = colon > 0 ? v.slice(colon + 1) : v;
  const dash = rest.lastIndexOf('-');
  return dash > 0 ? [epoch, rest.slice(0, dash), rest.slice(dash + 1)] : [epoch, rest, ''];
}

/** Red Hat family (RPM) versions, as `rpmdev-vercmp`. */
export function compareRpm(a: string, b: string): number {
  const [ea, va, ra] = splitRpm(a.trim());
  const [eb, vb, rb] = splitRpm(b.trim());
  // A release, even an empty one (`1-`), sorts after none.
  const released = Number(a.includes('-')) - Number(b.includes('-'));
  return Math.sign(rpmvercmp(ea, eb) || rpmvercmp(va, vb) || rpmvercmp(ra, rb) || released);
}

// ---- Alpine: apk-tools' version rules ----

const SUFFIXES = ['alpha', 'beta', 'pre', 'rc', '', 'cvs', 'svn', 'git', 'hg', 'p'];

interface ApkVersion {
  numbers: string[];
  letter: string;
  suffixes: { name: string; number: string }[];
  hash: string;
  release: string;
}

function parseApk(input: string): ApkVersion {
  let s = input.trim();
  const release = /-r([0-9]+)$/.exec(s);
  if (release) s = s.slice(0, release.index);
  const hash = /~([0-9a-f]+)$/i.exec(s);
  if (hash) s = s.slice(0, hash.index);
  const numbers = (/^[0-9]+(\.[0-9]+)*/.exec(s)?.[0] ?? '').split('.').filter(Boolean);
  s = s.slice(numbers.join('.').length);
  const letter = /^[a-z][0-9]*/.exec(s)?.[0] ?? '';
  s = s.slice(letter.length);
  const suffixes = [...s.matchAll(/_([a-z]+)([0-9]*)/g)].map((m) => ({ name: m[1]!, number: m[2] || '0' }));
  return { numbers, letter, suffixes, hash: hash?.[1] ?? '', release: release?.[1] ?? '0' };
}

/** Alpine (apk) versions: numbers (a leading zero compares as text), a letter, `_suffix` numbers, `~hash`, `-rN`. */
export function compareAlpine(a: string, b: string): number {
  const va = parseApk(a);
  const vb = parseApk(b);
  for (let i = 0; i < Math.max(va.numbers.length, vb.numbers.length); i++) {
    const x = va.numbers[i];
    const y = vb.numbers[i];
    if (x === undefined || y === undefined) {
      // More numbers wins, unless the shorter version goes on with a letter or suffix that settles it.
      return x === undefined ? -1 : 1;
    }
    // After the first component, a leading zero means a fraction: compared as text.
    const d = i > 0 && (x.startsWith('0') || y.startsWith('0')) ? (x < y ? -1 : x > y ? 1 : 0) : compareDigits(x, y);
    if (d) return d;
  }
  // A letter may carry a number (`5.7.3p1`, as some packages write a patch level): letter, then number.
  const [la, na] = [va.letter.slice(0, 1), va.letter.slice(1) || '0'];
  const [lb, nb] = [vb.letter.slice(0, 1), vb.letter.slice(1) || '0'];
  if (la !== lb) return la < lb ? -1 : 1;
  const letterNumber = compareDigits(na, nb);
  if (letterNumber) return letterNumber;
  for (let i = 0; i < Math.max(va.suffixes.length, vb.suffixes.length); i++) {
    const x = va.suffixes[i] ?? { name: '', number: '0' };
    const y = vb.suffixes[i] ?? { name: '', number: '0' };
    const d = SUFFIXES.indexOf(x.name) - SUFFIXES.indexOf(y.name) || compareDigits(x.number, y.number);
    if (d) return Math.sign(d);
  }
  if (va.hash !== vb.hash) return va.hash < vb.hash ? -1 : 1;
  return Math.sign(compareDigits(va.release, vb.release));
}

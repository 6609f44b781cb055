// Alpine apk versions (also Wolfi, Chainguard, MinimOS): number{.number}...{letter}{_suffix{number}}...
// {~hash}{-r#}, read as OSV-SCALIBR reads them (semantic/version-alpine.go), quirks included, because
// OSV's Alpine ranges are evaluated that way: a version that does not fit is "invalid", two invalid
// versions compare as text, and what is left after `-rN` only loses against nothing left.
import { compareDigits, compareStrings } from './digits';
import { memoized } from '../../../lib/memo';

// Suffix weights: alpha < beta < pre < rc < (none) < cvs < svn < git < hg < p.
const SUFFIXES = ['alpha', 'beta', 'pre', 'rc', '', 'cvs', 'svn', 'git', 'hg', 'p'];
const NO_SUFFIX = { weight: SUFFIXES.indexOf(''), number: '0' };

interface ApkVersion {
  original: string;
  invalid: boolean;
  /** Number components with their position (a leading zero after the first means a fraction). */
  numbers: { text: string; index: number }[];
  letter: string;
  suffixes: { weight: number; number: string }[];
  build: string;
  remainder: string;
}

const parse = memoized(parseApk);

function parseApk(input: string): ApkVersion {
  const v: ApkVersion = { original: input, invalid: false, numbers: [], letter: '', suffixes: [], build: '0', remainder: '' };
  let s = input;
  // Numbers: digits separated by dots; a dot not followed by a digit ends them (apk tolerates it).
  const head = /^(?:\d+\.?)*/.exec(s)![0];
  for (const [index, text] of head.split('.').entries()) {
    if (text === '') break;
    v.numbers.push({ text, index });
  }
  s = s.slice(head.length);
  if (/^[a-z]/.test(s)) {
    v.letter = s[0]!;
    s = s.slice(1);
  }
  // Suffixes are looked for anywhere in the rest, but only one at the start is consumed: OSV's parser
  // does this, and its answers for odd versions depend on it.
  for (const m of s.matchAll(/_(alpha|beta|pre|rc|cvs|svn|git|hg|p)(\d*)/g)) {
    v.suffixes.push({ weight: SUFFIXES.indexOf(m[1]!), number: m[2] || '0' });
    if (s.startsWith(m[0])) s = s.slice(m[0].length);
  }
  // A commit hash is ignored: hashes cannot be ordered.
  s = s.slice(/^~[0-9a-f]+/.exec(s)?.[0].length ?? 0);
  if (s !== '') {
    const build = /^-r(\d*)/.exec(s);
    if (!build) v.invalid = true;
    else {
      v.build = build[1] || '0';
      s = s.slice(build[0].length);
    }
  }
  v.remainder = s;
  return v;
}

function compareNumbers(a: ApkVersion, b: ApkVersion): number {
  for (let i = 0; i < Math.max(a.numbers.length, b.numbers.length); i++) {
    // A missing component reads as a first-position 0, so it always compares by value.
    const x = a.numbers[i] ?? { text: '0', index: 0 };
    const y = b.numbers[i] ?? { text: '0', index: 0 };
    const asText = x.index !== 0 && y.index !== 0 && (x.text.startsWith('0') || y.text.startsWith('0'));
    const d = asText ? compareStrings(x.text, y.text) : compareDigits(x.text, y.text);
    if (d !== 0) return d;
  }
  return 0;
}

function compareSuffixes(a: ApkVersion, b: ApkVersion): number {
  for (let i = 0; i < Math.max(a.suffixes.length, b.suffixes.length); i++) {
    const x = a.suffixes[i] ?? NO_SUFFIX;
    const y = b.suffixes[i] ?? NO_SUFFIX;
    const d = Math.sign(x.weight - y.weight) || compareDigits(x.number, y.number);
    if (d !== 0) return d;
  }
  return 0;
}

/** Alpine (apk) version ordering, as OSV evaluates Alpine, Wolfi, Chainguard and MinimOS ranges. */
export function compareAlpine(a: string, b: string): number {
  const va = parse(a);
  const vb = parse(b);
  if (va.invalid && vb.invalid) return compareStrings(va.original, vb.original);
  const letters = va.letter === vb.letter ? 0 : va.letter === '' ? -1 : vb.letter === '' ? 1 : compareStrings(va.letter, vb.letter);
  const remainder = (va.remainder === '') === (vb.remainder === '') ? 0 : va.remainder === '' ? 1 : -1;
  return compareNumbers(va, vb) || letters || compareSuffixes(va, vb) || compareDigits(va.build, vb.build) || remainder;
}

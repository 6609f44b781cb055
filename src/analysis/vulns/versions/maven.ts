// Maven: the version order specification (https://maven.apache.org/pom.html#version-order-specification)
// as Maven's ComparableVersion implements it, written the way OSV-SCALIBR does (semantic/version-maven.go):
// a flat list of tokens, each remembering whether a `.` or a `-` came before it. A flat list (rather than
// ComparableVersion's nested lists) is what OSV orders by, and it passes all of Maven's generated vectors.
import { compareDigits, isDigits } from './digits';
import { memoized } from '../../../lib/memo';

interface Token {
  /** `''` for the first token, else the separator before it: `.` or `-` (a digit/letter switch counts as `-`). */
  prefix: string;
  value: string;
  /** A padding token standing in for a missing one; it never wins as a number. */
  isNull: boolean;
}

const ABBREVIATIONS = new Map([['a', 'alpha'], ['b', 'beta'], ['m', 'milestone']]);
const KEYWORDS = ['alpha', 'beta', 'milestone', 'rc', 'snapshot', '', 'sp'];
const keywordRank = (value: string) => {
  const i = KEYWORDS.indexOf(value);
  return i < 0 ? KEYWORDS.length : i;
};

/** Splits on `.` and `-`, keeping each separator as its own element (value, sep, value, ...). */
function splitKeeping(s: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '.' || s[i] === '-') {
      out.push(s.slice(start, i), s[i]!);
      start = i + 1;
    }
  }
  out.push(s.slice(start));
  return out;
}

/** Offsets inside a token where digits switch to non-digits or back; Maven splits there as if by `-`. */
function transitions(token: string): number[] {
  const at: number[] = [];
  for (const m of token.matchAll(/\D\d/g)) at.push(m.index! + 1);
  for (const m of token.matchAll(/\d\D/g)) at.push(m.index! + 1);
  return at.sort((a, b) => a - b);
}

const parse = memoized(parseTokens);

function parseTokens(version: string): Token[] {
  const tokens: Token[] = [];
  const raw = splitKeeping(version);
  for (let i = 0; i < raw.length; i += 2) {
    const part = raw[i]!;
    let prefix = i === 0 ? '' : raw[i - 1]!;
    const cuts = [...transitions(part), part.length];
    let previous = 0;
    cuts.forEach((cut, j) => {
      if (j > 0) prefix = '-';
      // Qualifiers are case-insensitive; an empty token (`1..2`, `1-`) reads as 0.
      let value = part.slice(previous, cut).toLowerCase() || '0';
      if (value === 'cr') value = 'rc';
      if (value === 'ga' || value === 'final' || value === 'release') value = '';
      // `a`, `b` and `m` abbreviate alpha, beta and milestone only when a number follows at once.
      if (cut !== part.length) value = ABBREVIATIONS.get(value) ?? value;
      if (isDigits(value)) value = value.replace(/^0+(?=\d)/, '');
      tokens.push({ prefix, value, isNull: false });
      previous = cut;
    });
  }
  // Trailing "null" tokens (0, '', final, ga) are dropped, then again before each `-` from the end.
  let i = tokens.length - 1;
  while (i > 0) {
    const value = tokens[i]!.value;
    if (value === '0' || value === '' || value === 'final' || value === 'ga') {
      tokens.splice(i, 1);
      i--;
      continue;
    }
    while (i >= 0 && tokens[i]!.prefix !== '-') i--;
    i--;
  }
  return tokens;
}

/** The token that pads the shorter version opposite `other`: 0 after `.` (but '' opposite `sp`), '' after `-`. */
function nullToken(other: Token): Token {
  if (other.prefix === '-') return { prefix: '-', value: '', isNull: true };
  return { prefix: '.', value: other.value === 'sp' ? '' : '0', isNull: true };
}

/** `.qualifier` < `-qualifier` < `-number` < `.number`, for tokens with different separators. */
function separatorRank(t: Token): number {
  const numeric = isDigits(t.value);
  if (t.prefix === '-') return numeric ? 2 : 1;
  return numeric ? 3 : 0;
}

function tokenLess(a: Token, b: Token): boolean {
  if (a.prefix !== b.prefix) return separatorRank(a) < separatorRank(b);
  const na = isDigits(a.value);
  const nb = isDigits(b.value);
  if (na && nb) return compareDigits(a.value, b.value) < 0;
  // A real number sorts after any qualifier; a padding 0 does not (it is "nothing", see nullToken).
  if (na && !a.isNull) return false;
  if (nb && !b.isNull) return true;
  const ra = keywordRank(a.value);
  const rb = keywordRank(b.value);
  // Unknown qualifiers sort after the known ones, among themselves as text.
  if (ra === KEYWORDS.length && rb === KEYWORDS.length) return a.value < b.value;
  return ra < rb;
}

/** Maven version order (ComparableVersion as OSV reads it): negative, zero or positive. */
export function compareMaven(a: string, b: string): number {
  const ta = parse(a.trim());
  const tb = parse(b.trim());
  for (let i = 0; i < Math.max(ta.length, tb.length); i++) {
    const x = ta[i] ?? nullToken(tb[i]!);
    const y = tb[i] ?? nullToken(ta[i]!);
    if (x.prefix === y.prefix && x.value === y.value) continue;
    return tokenLess(x, y) ? -1 : 1;
  }
  return 0;
}

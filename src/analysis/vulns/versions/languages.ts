// Language ecosystems other than the SemVer family: PyPI (PEP 440, @renovatebot/pep440), RubyGems
// (@renovatebot/ruby-semver), Packagist (Composer's version_compare), CRAN and Hackage.
import { compare as pep440Compare, parse as pep440Parse } from '@renovatebot/pep440';
import { compareDigits, compareStrings } from './digits';

/** A version PEP 440 cannot parse: its numbers, then its text (OSV's fallback keeps such versions ordered). */
function compareLegacy(a: string, b: string): number {
  const pa = a.toLowerCase().split(/[.\-_+]/);
  const pb = b.toLowerCase().split(/[.\-_+]/);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i] ?? '';
    const y = pb[i] ?? '';
    const d = /^\d+$/.test(x) && /^\d+$/.test(y) ? compareDigits(x, y) : compareStrings(x, y);
    if (d) return d;
  }
  return 0;
}

/** PyPI: PEP 440; a version that is not PEP 440 sorts before every one that is, as packaging's LegacyVersion did. */
export function comparePyPI(a: string, b: string): number {
  const va = pep440Parse(a) !== null;
  const vb = pep440Parse(b) !== null;
  if (va && vb) return Math.sign(pep440Compare(a, b));
  if (va !== vb) return va ? 1 : -1;
  return compareLegacy(a, b);
}

/** Gem::Version's canonical segments: numbers and letter runs, trailing zeros of the release and pre-release parts dropped. */
function gemSegments(v: string): string[] {
  const segments = v.trim().match(/[0-9]+|[a-z]+/gi) ?? [];
  const firstText = segments.findIndex((s) => !/^\d/.test(s));
  const parts = firstText < 0 ? [segments] : [segments.slice(0, firstText), segments.slice(firstText)];
  return parts.flatMap((part) => {
    const kept = [...part];
    while (kept.length && /^0+$/.test(kept.at(-1)!)) kept.pop();
    return kept;
  });
}

/**
 * RubyGems: Gem::Version#<=>, written out because numbers here may exceed 2^53 (the `semver`-style
 * libraries read them as doubles). A letter segment is a pre-release: it sorts before any number.
 */
export function compareRubyGems(a: string, b: string): number {
  const sa = gemSegments(a);
  const sb = gemSegments(b);
  for (let i = 0; i < Math.max(sa.length, sb.length); i++) {
    const x = sa[i] ?? '0';
    const y = sb[i] ?? '0';
    if (x === y) continue;
    const nx = /^\d+$/.test(x);
    const ny = /^\d+$/.test(y);
    if (nx !== ny) return nx ? 1 : -1;
    return nx ? compareDigits(x, y) : compareStrings(x, y);
  }
  return 0;
}

// PHP's version_compare: a part that is not a number takes the rank of the first special form it
// starts with (case matters, as PHP's strncmp): dev < alpha = a < beta = b < RC = rc < # (numbers) < pl = p;
// any other text ranks below them all.
const PHP_FORMS: [string, number][] = [['dev', 0], ['alpha', 1], ['a', 1], ['beta', 2], ['b', 2], ['RC', 3], ['rc', 3], ['#', 4], ['pl', 5], ['p', 5]];

function canonPhp(v: string): string[] {
  const s = v.trim().replace(/^v/i, '').replace(/[-_+]/g, '.').replace(/(\d)([a-z])/gi, '$1.$2').replace(/([a-z])(\d)/gi, '$1.$2');
  return s.split('.').filter((p) => p !== '');
}

function phpRank(part: string): number {
  if (/^\d+$/.test(part)) return 4;
  return PHP_FORMS.find(([name]) => part.startsWith(name))?.[1] ?? -1;
}

/** Packagist (Composer): PHP's version_compare after Composer's normalisation (a leading `v` dropped). */
export function comparePackagist(a: string, b: string): number {
  const pa = canonPhp(a);
  const pb = canonPhp(b);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i];
    const y = pb[i];
    if (x === undefined || y === undefined) {
      // A missing part compares as "#" (a number) against a qualifier, and as shorter-is-older against a number.
      const other = (x ?? y)!;
      const d = /^\d+$/.test(other) ? 1 : phpRank(other) - 4;
      return x === undefined ? -Math.sign(d) : Math.sign(d);
    }
    const nx = /^\d+$/.test(x);
    const ny = /^\d+$/.test(y);
    const d = nx && ny ? compareDigits(x, y) : phpRank(x) - phpRank(y);
    if (d) return Math.sign(d);
  }
  return 0;
}

/** CRAN: numbers separated by `.` or `-`. */
export function compareCran(a: string, b: string): number {
  const pa = a.trim().split(/[.-]/);
  const pb = b.trim().split(/[.-]/);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    if (pa[i] === undefined || pb[i] === undefined) return pa[i] === undefined ? -1 : 1;
    const d = compareDigits(pa[i]!, pb[i]!);
    if (d) return d;
  }
  return 0;
}

/** Hackage (PVP): numbers separated by dots; a longer version with the same prefix is newer. */
export function compareHackage(a: string, b: string): number {
  return compareCran(a, b);
}

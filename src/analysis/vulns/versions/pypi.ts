// PyPI: PEP 440 with @renovatebot/pep440; versions PEP 440 refuses ("legacy" versions such as
// `0.7.4.svn.r2010` or date stamps) ordered as Python `packaging` < 22 did with LegacyVersion: before
// every valid version, among themselves by setuptools' old key. OSV's PyPI ranges and the generated
// vectors were made with that packaging, so this is what keeps old releases ordered instead of dropped.
import { compare as pep440Compare } from '@renovatebot/pep440';
import { compareStrings, hasHugeNumber } from './digits';

// PEP 440 Appendix B's regular expression (the one the library and packaging use), with named groups.
const PEP440 = new RegExp('^\\s*v?(?:(?:(?<epoch>[0-9]+)!)?(?<release>[0-9]+(?:\\.[0-9]+)*)'
  + '(?<pre>[-_.]?(?<pre_l>a|b|c|rc|alpha|beta|pre|preview)[-_.]?(?<pre_n>[0-9]+)?)?'
  + '(?<post>-(?<post_n1>[0-9]+)|[-_.]?(?<post_l>post|rev|r)[-_.]?(?<post_n2>[0-9]+)?)?'
  + '(?<dev>[-_.]?(?<dev_l>dev)[-_.]?(?<dev_n>[0-9]+)?)?)'
  + '(?:\\+(?<local>[a-z0-9]+(?:[-_.][a-z0-9]+)*))?\\s*$', 'i');

const LEGACY_RENAMES = new Map([['pre', 'c'], ['preview', 'c'], ['-', 'final-'], ['rc', 'c'], ['dev', '@']]);

/** packaging's _legacy_cmpkey parts: numbers zero-padded to 8, words prefixed `*`, pre-release words renamed to sort before `*final`. */
function legacyKey(version: string): string[] {
  // Python's re.split with a capturing group: the matched runs and the text between them are all parts.
  const pieces = version.toLowerCase().split(/(\d+|[a-z]+|\.|-)/).map((p) => LEGACY_RENAMES.get(p) ?? p).filter((p) => p !== '' && p !== '.');
  const parts: string[] = [];
  for (const piece of [...pieces.map((p) => (/^\d/.test(p) ? p.padStart(8, '0') : `*${p}`)), '*final']) {
    if (piece.startsWith('*')) {
      // A pre-release word drops the `-` markers before it; any word drops the trailing zeros before it.
      if (piece < '*final') while (parts.at(-1) === '*final-') parts.pop();
      while (parts.at(-1) === '00000000') parts.pop();
    }
    parts.push(piece);
  }
  return parts;
}

function compareLegacy(a: string, b: string): number {
  const ka = legacyKey(a);
  const kb = legacyKey(b);
  for (let i = 0; i < Math.min(ka.length, kb.length); i++) {
    const d = compareStrings(ka[i]!, kb[i]!);
    if (d !== 0) return d;
  }
  return Math.sign(ka.length - kb.length);
}

type Key = (bigint | number | string | Key)[];

/**
 * PEP 440's sort key with exact integers, for the rare version with a number past 2^53 (the library
 * reads numbers as doubles). The same key as packaging's _cmpkey, with ±Infinity for its sentinels.
 */
function exactKey(version: string): Key {
  const g = PEP440.exec(version.trim())!.groups!;
  const n = (s: string | undefined) => BigInt(s || '0');
  const release = g.release!.split('.').map(n);
  while (release.length && release.at(-1) === 0n) release.pop();
  const letter = (l: string | undefined) => ({ alpha: 'a', beta: 'b', c: 'rc', pre: 'rc', preview: 'rc', rev: 'post', r: 'post' } as Record<string, string>)[l!.toLowerCase()] ?? l!.toLowerCase();
  const pre: Key | number = g.pre_l ? [letter(g.pre_l), n(g.pre_n)] : !g.post && g.dev_l ? -Infinity : Infinity;
  const post: Key | number = g.post ? [n(g.post_n1 ?? g.post_n2)] : -Infinity;
  const dev: Key | number = g.dev_l ? [n(g.dev_n)] : Infinity;
  // Local segments: numbers sort after words (as [number, ''] against [-Infinity, word]).
  const local: Key | number = g.local ? g.local.toLowerCase().split(/[-_.]/).map((p) => (/^\d+$/.test(p) ? [BigInt(p), ''] : [-Infinity, p])) : -Infinity;
  return [n(g.epoch), release, pre, post, dev, local];
}

function compareKeys(a: Key[number], b: Key[number]): number {
  // packaging's Infinity / NegativeInfinity sentinels are above / below anything, tuples included.
  if (a === Infinity || b === -Infinity) return a === b ? 0 : 1;
  if (a === -Infinity || b === Infinity) return a === b ? 0 : -1;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const d = compareKeys(a[i]!, b[i]!);
      if (d !== 0) return d;
    }
    return Math.sign(a.length - b.length);
  }
  if (typeof a === 'string' && typeof b === 'string') return compareStrings(a, b);
  return a! < b! ? -1 : a! > b! ? 1 : 0;
}

/** PEP 440 ordering with exact integers (exported so the test can hold it to the library on every vector). */
export function comparePep440Exact(a: string, b: string): number {
  return compareKeys(exactKey(a), exactKey(b));
}

const isPep440 = (v: string) => PEP440.test(v);

/** PyPI version ordering: PEP 440, with legacy versions before every valid one (as packaging's LegacyVersion). */
export function comparePyPI(a: string, b: string): number {
  const va = isPep440(a);
  const vb = isPep440(b);
  if (va && vb) {
    if (hasHugeNumber(a) || hasHugeNumber(b)) return comparePep440Exact(a, b);
    return Math.sign(pep440Compare(a.trim(), b.trim()));
  }
  if (va !== vb) return va ? 1 : -1;
  return compareLegacy(a, b);
}


// Packagist (Composer): PHP's version_compare after canonicalisation, as OSV-SCALIBR implements it
// (semantic/version-packagist.go), since its answers are the ones OSV's Packagist ranges are built with.
import { compareDigits, isDigits } from './digits';

/** Composer drops a leading `v`; `-`, `_`, `+` separate like `.`, and so does every digit/letter switch. */
function canonical(version: string): string[] {
  const v = version.replace(/^v/, '').replace(/^V/, '')
    .replace(/[-_+]/g, '.')
    .replace(/([^\d.])(\d)/g, '$1.$2')
    .replace(/(\d)([^\d.])/g, '$1.$2');
  return v.split('.');
}

/**
 * The rank of a special form by its prefix, as version_compare reads it: dev < alpha/a < beta/b <
 * RC/rc < `#` (a number) < pl/p. Text it does not know ranks with `dev`, as OSV-SCALIBR has it.
 */
function specialRank(part: string): number {
  if (part.startsWith('RC')) return 3;
  const i = ['dev', 'a', 'b', 'rc', '#', 'p'].findIndex((special) => part.startsWith(special));
  return i < 0 ? 0 : i;
}

function compareParts(a: string[], b: string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i]!;
    const y = b[i]!;
    const nx = isDigits(x);
    const ny = isDigits(y);
    // A number against a special form compares as `#`.
    const d = nx && ny ? compareDigits(x, y) : specialRank(nx ? '#' : x) - specialRank(ny ? '#' : y);
    if (d !== 0) return Math.sign(d);
  }
  // The longer one wins when it goes on with a number; otherwise its next part meets a `#`.
  if (a.length > b.length) return isDigits(a[b.length]!) ? 1 : compareParts(a.slice(b.length), ['#']);
  if (a.length < b.length) return isDigits(b[a.length]!) ? -1 : compareParts(['#'], b.slice(a.length));
  return 0;
}

/** Packagist (Composer/PHP version_compare) ordering. */
export function comparePackagist(a: string, b: string): number {
  return compareParts(canonical(a), canonical(b));
}

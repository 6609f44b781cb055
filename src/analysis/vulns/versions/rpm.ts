// RPM versions (Red Hat, AlmaLinux, Rocky Linux, SUSE, openSUSE, Mageia, openEuler): [epoch:]version[-release],
// each part compared with rpm's rpmvercmp (rpmio/rpmvercmp.c), `~` (pre-release) and `^` (post-release) included.
import { compareDigits, compareStrings } from './digits';

const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';
const isLetter = (c: string | undefined) => c !== undefined && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'));

/** rpmvercmp: runs of digits or ASCII letters, anything else a separator; `~` sorts before everything, even the end; `^` after the end but before anything else. */
export function rpmvercmp(a: string, b: string): number {
  if (a === b) return 0;
  let i = 0;
  let j = 0;
  for (;;) {
    while (i < a.length && !isDigit(a[i]) && !isLetter(a[i]) && a[i] !== '~' && a[i] !== '^') i++;
    while (j < b.length && !isDigit(b[j]) && !isLetter(b[j]) && b[j] !== '~' && b[j] !== '^') j++;
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
    const numeric = isDigit(a[i]);
    const take = numeric ? isDigit : isLetter;
    let ei = i;
    while (ei < a.length && take(a[ei])) ei++;
    let ej = j;
    while (ej < b.length && take(b[ej])) ej++;
    // A number against letters: the number is newer.
    if (ej === j) return numeric ? 1 : -1;
    const d = numeric ? compareDigits(a.slice(i, ei), b.slice(j, ej)) : compareStrings(a.slice(i, ei), b.slice(j, ej));
    if (d !== 0) return d;
    i = ei;
    j = ej;
  }
  if (i >= a.length && j >= b.length) return 0;
  return i >= a.length ? -1 : 1;
}

/** rpm's parseEVR: an epoch only when all digits before `:`; the release after the last `-` (null when there is none). */
function split(v: string): [string, string, string | null] {
  const colon = v.indexOf(':');
  const hasEpoch = colon > 0 && /^[0-9]+$/.test(v.slice(0, colon));
  const rest = hasEpoch ? v.slice(colon + 1) : v;
  const dash = rest.lastIndexOf('-');
  return [hasEpoch ? v.slice(0, colon) : '0', dash >= 0 ? rest.slice(0, dash) : rest, dash >= 0 ? rest.slice(dash + 1) : null];
}

/** RPM version ordering (epoch, version, release), as `rpmdev-vercmp`; a release, even an empty one, sorts after none. */
export function compareRpm(a: string, b: string): number {
  const [ea, va, ra] = split(a.trim());
  const [eb, vb, rb] = split(b.trim());
  const release = ra === null || rb === null ? Number(ra !== null) - Number(rb !== null) : rpmvercmp(ra, rb);
  return compareDigits(ea, eb) || rpmvercmp(va, vb) || release;
}

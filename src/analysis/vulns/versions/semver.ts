// The SemVer family (npm, Go, crates.io, Hex), Pub and NuGet.
//
// Strict SemVer 2.0 inputs go to the `semver` package. Inputs it refuses but OSV still orders
// (numbers past 2^53, a fourth numeric component, a missing patch) take the lenient reading
// OSV-SCALIBR uses: any count of numeric components, then everything else as a "build" string
// whose leading `-` part is the pre-release. On strict inputs both readings agree (the test checks it).
import semverCompare from 'semver/functions/compare.js';
import semverParse from 'semver/functions/parse.js';
import { compareDigits, compareStrings, hasHugeNumber, isDigits } from './digits';

interface Loose {
  components: string[];
  build: string;
}

function parseLoose(input: string, maxComponents: number): Loose {
  const s = input.startsWith('v') ? input.slice(1) : input;
  const components: string[] = [];
  let i = 0;
  let current = '';
  for (; i < s.length; i++) {
    const c = s[i]!;
    if (c >= '0' && c <= '9') {
      current += c;
      continue;
    }
    if (current !== '') components.push(current);
    current = '';
    if (c !== '.') break;
  }
  let build = i < s.length ? s.slice(i) : '';
  if (i >= s.length && current !== '') components.push(current);
  // Components past the ecosystem's count belong to the build string, as OSV-SCALIBR reads them.
  if (components.length > maxComponents) {
    build = components.slice(maxComponents).map((c) => `.${c}`).join('') + build;
    components.length = maxComponents;
  }
  return { components, build };
}

function compareComponents(a: string[], b: string[]): number {
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = compareDigits(a[i] ?? '0', b[i] ?? '0');
    if (d !== 0) return d;
  }
  return 0;
}

/** SemVer 2.0 pre-release precedence of two build strings (`-pre+meta`), metadata ignored. */
function comparePrerelease(a: string, b: string): number {
  const pa = a.split('+')[0]!.replace(/^-/, '');
  const pb = b.split('+')[0]!.replace(/^-/, '');
  if (pa === '' || pb === '') return pa === pb ? 0 : pa === '' ? 1 : -1;
  const xa = pa.split('.');
  const xb = pb.split('.');
  for (let i = 0; i < Math.min(xa.length, xb.length); i++) {
    const ia = xa[i]!;
    const ib = xb[i]!;
    const na = isDigits(ia);
    const nb = isDigits(ib);
    const d = na && nb ? compareDigits(ia, ib) : na ? -1 : nb ? 1 : compareStrings(ia, ib);
    if (d !== 0) return d;
  }
  return Math.sign(xa.length - xb.length);
}

function compareLoose(a: string, b: string, maxComponents: number, lowerCase: boolean): number {
  const va = parseLoose(a, maxComponents);
  const vb = parseLoose(b, maxComponents);
  const d = compareComponents(va.components, vb.components);
  if (d !== 0) return d;
  return lowerCase
    ? comparePrerelease(va.build.toLowerCase(), vb.build.toLowerCase())
    : comparePrerelease(va.build, vb.build);
}

/** Lenient SemVer precedence (OSV's reading); exported so the test can check it against `semver`. */
export function compareSemverLoose(a: string, b: string): number {
  return compareLoose(a, b, 3, false);
}

function strict(v: string): boolean {
  return !hasHugeNumber(v) && semverParse(v) !== null;
}

/** SemVer 2.0 precedence (build metadata ignored); Go's leading `v` and pseudo-versions included. */
export function compareSemver(a: string, b: string): number {
  if (strict(a) && strict(b)) return semverCompare(a, b);
  return compareSemverLoose(a, b);
}

/** Pub (pub_semver): SemVer precedence, then build metadata ordered as text. */
export function comparePub(a: string, b: string): number {
  const d = compareSemverLoose(a, b);
  if (d !== 0) return d;
  const ba = parseLoose(a, 3).build;
  const bb = parseLoose(b, 3).build;
  const ma = ba.includes('+') ? ba.slice(ba.indexOf('+') + 1) : '';
  const mb = bb.includes('+') ? bb.slice(bb.indexOf('+') + 1) : '';
  return compareStrings(ma, mb);
}

/** NuGet: four numeric components, case-insensitive pre-release labels, metadata ignored. */
export function compareNuGet(a: string, b: string): number {
  return compareLoose(a, b, 4, true);
}

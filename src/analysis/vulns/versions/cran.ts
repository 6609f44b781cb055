// CRAN (R's package_version / compareVersion) and Hackage (Haskell's PVP): dotted numbers. OSV's
// database holds advisories for both; the service orders them although no fixture SBOM uses them yet.
import { compareDigits, compareStrings, isDigits } from './digits';

/** Compares component lists by value; a longer list with the same prefix is newer (`1.0 < 1.0.0`, as R and Cabal say). */
function compareComponents(a: string[], b: string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i]!;
    const y = b[i]!;
    // Not valid in either ecosystem; ordered as text so that comparison stays total.
    const d = isDigits(x) && isDigits(y) ? compareDigits(x, y) : compareStrings(x, y);
    if (d !== 0) return d;
  }
  return Math.sign(a.length - b.length);
}

/** CRAN version ordering: numbers separated by `.` or `-`. */
export function compareCran(a: string, b: string): number {
  return compareComponents(a.trim().split(/[.-]/), b.trim().split(/[.-]/));
}

/** Hackage (PVP) version ordering: numbers separated by `.`. */
export function compareHackage(a: string, b: string): number {
  return compareComponents(a.trim().split('.'), b.trim().split('.'));
}

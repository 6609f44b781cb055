// Version ordering per OSV ecosystem: one comparator each, chosen by the ecosystem's base name
// (`Debian:12` orders as `Debian`). Vectors: test/fixtures/versions (OSV-SCALIBR's).
import { compareAlpine, compareDebian, compareRpm } from './distro';
import { compareCran, compareHackage, comparePackagist, comparePyPI, compareRubyGems } from './languages';
import { compareMaven } from './maven';
import { compareNuGet, comparePub, compareSemver } from './semver';

type Compare = (a: string, b: string) => number;

const BY_ECOSYSTEM: Record<string, Compare> = {
  npm: compareSemver, Go: compareSemver, 'crates.io': compareSemver, Hex: compareSemver, Pub: comparePub, NuGet: compareNuGet,
  Maven: compareMaven, PyPI: comparePyPI, RubyGems: compareRubyGems, Packagist: comparePackagist, CRAN: compareCran, Hackage: compareHackage,
  Debian: compareDebian, Ubuntu: compareDebian,
  Alpine: compareAlpine, Wolfi: compareAlpine, Chainguard: compareAlpine, MinimOS: compareAlpine,
  'Red Hat': compareRpm, AlmaLinux: compareRpm, 'Rocky Linux': compareRpm, SUSE: compareRpm, openSUSE: compareRpm, Mageia: compareRpm, openEuler: compareRpm,
};

const comparatorOf = (ecosystem: string): Compare | undefined => BY_ECOSYSTEM[ecosystem.split(':')[0]!];

/** Whether versions of the ecosystem can be ordered (its ECOSYSTEM ranges evaluated). */
export const isOrderedEcosystem = (ecosystem: string) => comparatorOf(ecosystem) !== undefined;

/** Orders two versions by the ecosystem's own rules: negative, zero or positive. */
export function compareVersions(ecosystem: string, a: string, b: string): number {
  const compare = comparatorOf(ecosystem);
  if (!compare) throw new Error(`No version ordering for ecosystem ${ecosystem}.`);
  return compare(a, b);
}

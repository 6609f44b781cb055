// Version ordering per OSV ecosystem: one comparator each, chosen by the ecosystem's base name
// (`Debian:12`, `Ubuntu:22.04:LTS`, `Alpine:v3.16` order as `Debian`, `Ubuntu`, `Alpine`). The choice
// of comparator per ecosystem follows OSV-SCALIBR's semantic.Parse; vectors: test/fixtures/versions.
import { compareAlpine } from './alpine';
import { compareCran, compareHackage } from './cran';
import { compareDebian } from './debian';
import { compareMaven } from './maven';
import { comparePackagist } from './packagist';
import { comparePyPI } from './pypi';
import { compareRpm } from './rpm';
import { compareRubyGems } from './rubygems';
import { compareNuGet, comparePub, compareSemver } from './semver';

type Compare = (a: string, b: string) => number;

const BY_ECOSYSTEM = new Map<string, Compare>([
  // SemVer 2.0 (leniently, as OSV): language registries and the few distributions that version that way.
  ...['npm', 'Go', 'crates.io', 'Hex', 'SwiftURL', 'Bitnami', 'ConanCenter', 'Julia', 'GHC', 'Bioconductor', 'Docker Hardened Images']
    .map((e) => [e, compareSemver] as const),
  ['Pub', comparePub], ['NuGet', compareNuGet], ['Maven', compareMaven], ['PyPI', comparePyPI], ['RubyGems', compareRubyGems],
  ['Packagist', comparePackagist], ['CRAN', compareCran], ['Hackage', compareHackage],
  ['Debian', compareDebian], ['Ubuntu', compareDebian],
  ...['Alpine', 'Wolfi', 'Chainguard', 'MinimOS', 'Alpaquita', 'BellSoft Hardened Containers'].map((e) => [e, compareAlpine] as const),
  ...['Red Hat', 'AlmaLinux', 'Rocky Linux', 'SUSE', 'openSUSE', 'Mageia', 'openEuler'].map((e) => [e, compareRpm] as const),
]);

/**
 * An ecosystem's name without its release (`Debian` for `Debian:12`), as the vulnerability database
 * stores `base`. Called for every advisory entry and candidate version while matching: no arrays.
 */
export const ecosystemBase = (ecosystem: string) => {
  const colon = ecosystem.indexOf(':');
  return (colon < 0 ? ecosystem : ecosystem.slice(0, colon)).trim();
};

/** The ecosystem's own order, undefined when it has none. */
export const comparatorOf = (ecosystem: string): Compare | undefined => BY_ECOSYSTEM.get(ecosystemBase(ecosystem));

/** Whether versions of the ecosystem can be ordered, so that its ECOSYSTEM ranges can be evaluated. */
export const isOrderedEcosystem = (ecosystem: string): boolean => comparatorOf(ecosystem) !== undefined;

/** Orders two versions by the ecosystem's own rules (negative, zero or positive); throws for an ecosystem without an order. */
export function compareVersions(ecosystem: string, a: string, b: string): number {
  const compare = comparatorOf(ecosystem);
  if (!compare) throw new Error(`No version ordering for ecosystem ${ecosystem}.`);
  return Math.sign(compare(a, b));
}

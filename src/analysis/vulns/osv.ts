// Whether an OSV record affects a package version, evaluated as the OSV schema's "Evaluation" section
// (https://ossf.github.io/osv-schema/#evaluation) says: an `affected` entry naming the package affects
// the version when its `versions` list holds it or one of its SEMVER / ECOSYSTEM ranges contains it; a
// range contains it when it is below one of the range's limits (none means no limit) and the range's
// events, sorted by version, leave it affected (`introduced` switches on, `fixed` and versions after
// `last_affected` switch off). GIT ranges name commits, which a purl does not carry: they are ignored.
// Withdrawn records never match.
import type { OsvAffected, OsvEvent, OsvRange, OsvRecord, PackageKey } from './osv-types';
import { comparatorOf, ecosystemBase } from './versions/index';
import { compareSemver } from './versions/semver';

type Compare = (a: string, b: string) => number;

/** The key of a package in lookups and their answers: its ecosystem and name. */
export const packageKey = (p: PackageKey) => `${p.ecosystem}\u0000${p.name}`;

const suffixOf = (ecosystem: string) => {
  const colon = ecosystem.indexOf(':');
  return colon < 0 ? '' : ecosystem.slice(colon + 1).trim();
};

/**
 * The release part of an ecosystem suffix, as compared between a record and a package. Ubuntu's
 * `:LTS` marker is part of OSV's spelling (`Ubuntu:22.04:LTS`), not of the release, so it is dropped;
 * `Ubuntu:Pro:...` stays distinct: those are fixes for Ubuntu Pro (ESM) subscribers only.
 */
function releaseOf(ecosystem: string): string {
  const suffix = suffixOf(ecosystem);
  return ecosystemBase(ecosystem) === 'Ubuntu' ? suffix.replace(/:LTS$/i, '') : suffix;
}

/**
 * Whether a record's ecosystem covers a package's: the same base name, and the same release, unless
 * either side has none. A record for bare `Debian` covers every release; a package whose release is
 * unknown (a purl without `distro`) is matched against every release's records, because missing a
 * vulnerability costs more than a finding the reader can dismiss.
 */
export function ecosystemCovers(recordEcosystem: string, packageEcosystem: string): boolean {
  if (ecosystemBase(recordEcosystem) !== ecosystemBase(packageEcosystem)) return false;
  const r = releaseOf(recordEcosystem);
  const p = releaseOf(packageEcosystem);
  return r === '' || p === '' || r === p;
}

/**
 * A package name as compared within its ecosystem: PyPI names PEP 503-normalised, NuGet and Packagist
 * names case-folded (both registries treat names case-insensitively); elsewhere the name as written.
 */
export function packageNameKey(ecosystem: string, name: string): string {
  const base = ecosystemBase(ecosystem);
  if (base === 'PyPI') return name.toLowerCase().replace(/[-_.]+/g, '-');
  if (base === 'NuGet' || base === 'Packagist') return name.toLowerCase();
  return name;
}

/** Whether an `affected` entry names the package (ecosystem covered, same name). */
export function namesPackage(affected: OsvAffected, pkg: PackageKey): boolean {
  const p = affected.package;
  if (!p?.ecosystem || typeof p.name !== 'string') return false;
  if (p.ecosystem === pkg.ecosystem && p.name === pkg.name) return true;
  return ecosystemCovers(p.ecosystem, pkg.ecosystem) && packageNameKey(p.ecosystem, p.name) === packageNameKey(pkg.ecosystem, pkg.name);
}

/** The order a range's versions follow: SemVer 2.0 for SEMVER ranges (whatever the ecosystem), the ecosystem's own for ECOSYSTEM; null when it cannot be evaluated. */
export function comparatorFor(range: OsvRange, ecosystem: string): Compare | null {
  if (range.type === 'SEMVER') return compareSemver;
  if (range.type === 'ECOSYSTEM') return comparatorOf(ecosystem) ?? null;
  return null;
}

/** The version an event is at (each event has exactly one of the four). */
const eventVersion = (e: OsvEvent): string | undefined => e.introduced ?? e.fixed ?? e.last_affected ?? e.limit;

/** The range's events sorted by version: `introduced: "0"` first, events at the same version in the order written. */
export function sortedEvents(range: OsvRange, compare: Compare): OsvEvent[] {
  return (range.events ?? [])
    .map((e, i) => ({ e, i, at: eventVersion(e) }))
    .filter((x): x is { e: OsvEvent; i: number; at: string } => typeof x.at === 'string')
    .sort((x, y) => {
      const zx = x.e.introduced === '0';
      const zy = y.e.introduced === '0';
      if (zx || zy) return zx && zy ? x.i - y.i : zx ? -1 : 1;
      return compare(x.at, y.at) || x.i - y.i;
    })
    .map((x) => x.e);
}

/** The schema's BeforeLimits: no limit event means no limit; `*` (in a limit) means infinity. */
function beforeLimits(range: OsvRange, version: string, compare: Compare): boolean {
  const limits = (range.events ?? []).filter((e) => typeof e.limit === 'string').map((e) => e.limit!);
  return limits.length === 0 || limits.some((limit) => limit.includes('*') || compare(version, limit) < 0);
}

/** Whether `version` falls in the range (the schema's IncludedInRanges for one range). */
export function inRange(range: OsvRange, version: string, compare: Compare): boolean {
  if (!beforeLimits(range, version, compare)) return false;
  let affected = false;
  for (const e of sortedEvents(range, compare)) {
    if (e.introduced !== undefined && (e.introduced === '0' || compare(version, e.introduced) >= 0)) affected = true;
    else if (e.fixed !== undefined && compare(version, e.fixed) >= 0) affected = false;
    else if (e.last_affected !== undefined && compare(version, e.last_affected) > 0) affected = false;
  }
  return affected;
}

/**
 * Whether the entry's explicit `versions` list holds the version: the same text (the schema's test),
 * or, in an ecosystem with an order, an equal version (`1.0` is `1.0.0` to PEP 440 and Maven).
 */
function listed(affected: OsvAffected, pkg: PackageKey, version: string): boolean {
  const versions = affected.versions ?? [];
  if (versions.includes(version)) return true;
  const compare = comparatorOf(pkg.ecosystem);
  if (!compare || !versions.length) return false;
  // Binary search in the list sorted once: fix versions are checked against every matched advisory,
  // and a popular package's advisories list hundreds of versions each.
  const sorted = sortedVersions(versions, compare);
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compare(sorted[middle]!, version) < 0) low = middle + 1;
    else high = middle;
  }
  return low < sorted.length && compare(sorted[low]!, version) === 0;
}

const sortedLists = new WeakMap<string[], { compare: Compare; sorted: string[] }>();

/** An advisory's listed versions in the ecosystem's order, sorted once per list object and order. */
function sortedVersions(versions: string[], compare: Compare): string[] {
  const held = sortedLists.get(versions);
  if (held?.compare === compare) return held.sorted;
  const sorted = versions.filter((v) => typeof v === 'string').sort(compare);
  sortedLists.set(versions, { compare, sorted });
  return sorted;
}

/** The ranges of an entry that contain the version, each with the order it was evaluated in. */
export function rangesContaining(affected: OsvAffected, pkg: PackageKey, version: string): { range: OsvRange; compare: Compare }[] {
  const found: { range: OsvRange; compare: Compare }[] = [];
  for (const range of affected.ranges ?? []) {
    const compare = comparatorFor(range, pkg.ecosystem);
    if (compare && inRange(range, version, compare)) found.push({ range, compare });
  }
  return found;
}

/** The record's `affected` entries that name the package and affect this version (none for a withdrawn record). */
export function affectedEntries(record: OsvRecord, pkg: PackageKey, version: string): OsvAffected[] {
  if (record.withdrawn) return [];
  return (record.affected ?? []).filter((a) => namesPackage(a, pkg) && (listed(a, pkg, version) || rangesContaining(a, pkg, version).length > 0));
}

/** Whether the record affects the package at this version (the schema's IsVulnerable). */
export function isAffected(record: OsvRecord, pkg: PackageKey, version: string): boolean {
  return affectedEntries(record, pkg, version).length > 0;
}

/** The order of the package's versions: its ecosystem's, or SemVer's when the ecosystem has none (only SEMVER ranges then). */
export function versionOrder(ecosystem: string): Compare {
  return comparatorOf(ecosystem) ?? compareSemver;
}

/**
 * The `fixed` versions above `version` in the record's ranges for the package (with `onlyContaining`,
 * only in the ranges that contain the version), each once, smallest first in the package's order.
 */
export function fixedVersionsAbove(record: OsvRecord, pkg: PackageKey, version: string, onlyContaining = false): string[] {
  const found = new Set<string>();
  for (const affected of record.affected ?? []) {
    if (!namesPackage(affected, pkg)) continue;
    const ranges = onlyContaining ? rangesContaining(affected, pkg, version) : (affected.ranges ?? []).map((range) => ({ range, compare: comparatorFor(range, pkg.ecosystem) }));
    for (const { range, compare } of ranges) {
      if (!compare) continue;
      for (const e of range.events ?? []) if (typeof e.fixed === 'string' && compare(e.fixed, version) > 0) found.add(e.fixed);
    }
  }
  const order = versionOrder(pkg.ecosystem);
  return [...found].sort(order);
}

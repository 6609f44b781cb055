// Whether an OSV record affects a package version, evaluated as the OSV schema's "Evaluation"
// section describes: explicit `versions`, then SEMVER and ECOSYSTEM ranges whose events, sorted by
// version, switch the state on (`introduced`) and off (`fixed`, after `last_affected`); `limit`
// bounds a range from above. Withdrawn records never match; GIT ranges are left to commit data.
import { compareSemver } from './versions/semver';
import { compareVersions, isOrderedEcosystem } from './versions/index';
import type { OsvAffected, OsvRange, OsvRecord, PackageKey } from './osv-types';

const base = (ecosystem: string) => ecosystem.split(':')[0]!;
const normalName = (ecosystem: string, name: string) => (base(ecosystem) === 'PyPI' ? name.toLowerCase().replace(/[-_.]+/g, '-') : name);

/** Whether an `affected` entry names the package: same name, and the same ecosystem (a bare one on either side matches every release of it). */
export function namesPackage(affected: OsvAffected, pkg: PackageKey): boolean {
  const p = affected.package;
  if (!p) return false;
  if (normalName(p.ecosystem, p.name) !== normalName(pkg.ecosystem, pkg.name)) return false;
  if (p.ecosystem === pkg.ecosystem) return true;
  return base(p.ecosystem) === base(pkg.ecosystem) && (!p.ecosystem.includes(':') || !pkg.ecosystem.includes(':'));
}

type Compare = (a: string, b: string) => number;

function comparatorFor(range: OsvRange, ecosystem: string): Compare | null {
  if (range.type === 'SEMVER') return compareSemver;
  if (range.type === 'ECOSYSTEM' && isOrderedEcosystem(ecosystem)) return (a, b) => compareVersions(ecosystem, a, b);
  return null;
}

/** The version an event is at, and a sort key for events at the same version (ends before starts). */
function eventVersion(e: OsvRange['events'][number]): string | undefined {
  return e.introduced ?? e.fixed ?? e.last_affected ?? e.limit;
}

/** Whether `version` falls in the range (the schema's `includedInRange`). */
export function inRange(range: OsvRange, version: string, compare: Compare): boolean {
  const events = range.events
    .map((e, i) => ({ e, i, at: eventVersion(e) }))
    .filter((x): x is { e: OsvRange['events'][number]; i: number; at: string } => x.at !== undefined)
    .sort((x, y) => {
      if (x.e.introduced === '0') return y.e.introduced === '0' ? x.i - y.i : -1;
      if (y.e.introduced === '0') return 1;
      return compare(x.at, y.at) || x.i - y.i;
    });
  const limits = events.filter((x) => x.e.limit !== undefined);
  if (limits.length && limits.every((x) => x.e.limit !== '*' && compare(version, x.e.limit!) >= 0)) return false;
  let affected = false;
  for (const { e } of events) {
    if (e.introduced !== undefined && (e.introduced === '0' || compare(version, e.introduced) >= 0)) affected = true;
    else if (e.fixed !== undefined && compare(version, e.fixed) >= 0) affected = false;
    else if (e.last_affected !== undefined && compare(version, e.last_affected) > 0) affected = false;
  }
  return affected;
}

/** The matching `affected` entries of a record in which the version is affected. */
export function affectedEntries(record: OsvRecord, pkg: PackageKey, version: string): OsvAffected[] {
  if (record.withdrawn) return [];
  return (record.affected ?? []).filter((affected) => {
    if (!namesPackage(affected, pkg)) return false;
    if (affected.versions?.includes(version)) return true;
    return (affected.ranges ?? []).some((range) => {
      const compare = comparatorFor(range, pkg.ecosystem);
      return compare !== null && inRange(range, version, compare);
    });
  });
}

/** Whether the record affects the package at this version. */
export const isAffected = (record: OsvRecord, pkg: PackageKey, version: string) => affectedEntries(record, pkg, version).length > 0;

/** The `fixed` versions above `version` in the ranges of the given entries that contain it, smallest first. */
export function fixedVersionsAbove(entries: OsvAffected[], pkg: PackageKey, version: string): string[] {
  const found: string[] = [];
  for (const affected of entries) {
    for (const range of affected.ranges ?? []) {
      const compare = comparatorFor(range, pkg.ecosystem);
      if (!compare || !inRange(range, version, compare)) continue;
      for (const e of range.events) if (e.fixed !== undefined && compare(e.fixed, version) > 0) found.push(e.fixed);
    }
  }
  const order = isOrderedEcosystem(pkg.ecosystem) ? (a: string, b: string) => compareVersions(pkg.ecosystem, a, b) : compareSemver;
  return [...new Set(found)].sort(order);
}

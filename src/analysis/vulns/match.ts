// One installed package against the records that name it: the advisories that affect it (with their
// severity and their own first fix), and the version that leaves all of them behind.
import { affectedEntries, fixedVersionsAbove, isAffected } from './osv';
import type { AdvisoryMatch, OsvRecord, PackageKey, SeverityLabel } from './osv-types';
import { severityOf } from './severity';
import { compareVersions, isOrderedEcosystem } from './versions/index';
import { compareSemver } from './versions/semver';

const SEVERITY_ORDER: SeverityLabel[] = ['critical', 'high', 'medium', 'low', 'unknown'];

/** CVE ids first, then the rest, each once. */
const aliasesOf = (record: OsvRecord) => [...new Set(record.aliases ?? [])].sort((a, b) => Number(!a.startsWith('CVE-')) - Number(!b.startsWith('CVE-')) || a.localeCompare(b));

export function matchPackage(pkg: PackageKey, version: string, records: OsvRecord[]): { advisories: AdvisoryMatch[]; fix_version: string | null } {
  const matched: { record: OsvRecord; advisory: AdvisoryMatch; fixes: string[] }[] = [];
  for (const record of records) {
    const entries = affectedEntries(record, pkg, version);
    if (!entries.length) continue;
    const fixes = fixedVersionsAbove(entries, pkg, version);
    matched.push({
      record, fixes,
      advisory: {
        id: record.id, aliases: aliasesOf(record), summary: record.summary ?? null, severity: severityOf(record, entries[0]),
        fixed_version: fixes[0] ?? null, published: record.published ?? null, modified: record.modified,
      },
    });
  }
  // The component's fix: the smallest fixed version above it that no matched advisory still affects.
  const order = isOrderedEcosystem(pkg.ecosystem) ? (a: string, b: string) => compareVersions(pkg.ecosystem, a, b) : compareSemver;
  const candidates = [...new Set(matched.flatMap((m) => m.fixes))].sort(order);
  const fix = candidates.find((candidate) => matched.every((m) => !isAffected(m.record, pkg, candidate))) ?? null;
  const advisories = matched.map((m) => m.advisory)
    .sort((a, b) => SEVERITY_ORDER.indexOf(a.severity.label) - SEVERITY_ORDER.indexOf(b.severity.label) || a.id.localeCompare(b.id));
  return { advisories, fix_version: fix };
}

// One installed package against the records that may name it: the advisories that affect it (with
// their severity and their own first fix), and the version that leaves all of them behind.
import { affectedEntries, fixedVersionsAbove, isAffected, versionOrder } from './osv';
import type { AdvisoryMatch, OsvRecord, PackageKey } from './osv-types';
import { severityOf, severityRank, type Severity } from './severity';

/** The record's other ids, each once: CVE ids first, then the rest, each group in text order. */
export function aliasesOf(record: OsvRecord): string[] {
  const ids = [...new Set((record.aliases ?? []).filter((a) => typeof a === 'string' && a !== record.id))];
  return ids.sort((a, b) => Number(!a.startsWith('CVE-')) - Number(!b.startsWith('CVE-')) || (a < b ? -1 : a > b ? 1 : 0));
}

/** The smallest candidate no given record still affects at that version, or null. */
function firstClear(candidates: string[], records: OsvRecord[], pkg: PackageKey): string | null {
  return candidates.find((candidate) => records.every((record) => !isAffected(record, pkg, candidate))) ?? null;
}

/**
 * The advisories affecting `pkg` at `version`, worst severity first then by id, and `fix_version`: the
 * smallest version above the installed one that none of them affects, when the records name one.
 * Candidates are every `fixed` event above the installed version in the matched advisories' ranges
 * for the package (not only the ranges containing it: a later branch's fix can be the only way out),
 * each checked against every matched advisory, so that an advisory with several ranges, or one
 * advisory fixed later than another, never yields a version still affected. An advisory that nothing
 * fixes leaves the component without a fix version. Each advisory's own `fixed_version` is the
 * smallest `fixed` above the installed version in its ranges that contain it, that it no longer affects.
 */
export function matchPackage(pkg: PackageKey, version: string, records: OsvRecord[]): { advisories: AdvisoryMatch[]; fix_version: string | null } {
  const matched: { record: OsvRecord; advisory: AdvisoryMatch }[] = [];
  const seen = new Set<string>();
  for (const record of records) {
    if (seen.has(record.id)) continue;
    const entries = affectedEntries(record, pkg, version);
    if (!entries.length) continue;
    seen.add(record.id);
    // Entries for the same package may differ in severity (rare); the worst one speaks.
    const severity = entries.map((entry) => severityOf(record, entry)).sort((a, b) => severityRank(a.label) - severityRank(b.label))[0]!;
    matched.push({
      record,
      advisory: {
        id: record.id, aliases: aliasesOf(record), summary: record.summary ?? null, severity: severityFields(severity),
        fixed_version: firstClear(fixedVersionsAbove(record, pkg, version, true), [record], pkg),
        published: record.published ?? null, modified: record.modified,
      },
    });
  }
  const order = versionOrder(pkg.ecosystem);
  const candidates = [...new Set(matched.flatMap((m) => fixedVersionsAbove(m.record, pkg, version)))].sort(order);
  const fix = firstClear(candidates, matched.map((m) => m.record), pkg);
  const advisories = matched.map((m) => m.advisory)
    .sort((a, b) => severityRank(a.severity.label) - severityRank(b.severity.label) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { advisories, fix_version: fix };
}

const severityFields = (s: Severity): AdvisoryMatch['severity'] => ({ label: s.label, score: s.score, vector: s.vector, type: s.type });

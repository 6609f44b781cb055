// What changed in the vulnerability database since a time, for the re-match of every project after the
// daily refresh (src/queues/rematch.ts; docs/decisions.md, "Vulnerability data changes"): the records
// that imports wrote after it, withdrawn ones included (a withdrawn record must take its findings
// away), and the distinct packages they name. Read import by import, a page of records at a time,
// through the (import_id, id) index; bounded: past MAX_CHANGED_RECORDS records or MAX_CHANGED_PACKAGES
// packages the answer is "too many", and the caller matches every component again instead. Also
// where a package's components are found in a project: the package URL ranges of an OSV package.
import { PackageURL } from 'packageurl-js';
import { pep503 } from '../analysis/vulns/ecosystem';
import type { PackageKey } from '../analysis/vulns/osv-types';
import { ecosystemBase } from '../analysis/vulns/versions/index';

/** More changed packages than this: every component of a project is matched again (cheaper than a range query per package). */
export const MAX_CHANGED_PACKAGES = 5_000;
/** More changed records than this: likewise (a mass re-publication, the first import of an ecosystem). */
export const MAX_CHANGED_RECORDS = 20_000;
/** Records per query. */
export const CHANGES_PAGE = 1_000;
/** An import not finished after this long is taken for dead: it no longer holds the next re-match's start back. */
export const IMPORT_RUNNING_MS = 24 * 60 * 60_000;

export type VulnChanges = {
  /**
   * Where the next re-match starts: the newest change read (an import's `changed_at`), held back to the
   * start of an import still running (its batches in flight may commit with earlier times); null when
   * nothing changed and nothing is running.
   */
  through: string | null;
} & (
  | { complete: true; packages: PackageKey[]; records: string[] }
  /** More than the caps: treat every component as affected. */
  | { complete: false }
);

interface Row {
  id: string;
  ecosystem: string | null;
  name: string | null;
}

/** The records written, and the packages named, by imports whose last change came after `since` (an RFC 3339 time). */
export async function vulnChangesSince(
  db: D1Database, since: string,
  caps: { packages: number; records: number } = { packages: MAX_CHANGED_PACKAGES, records: MAX_CHANGED_RECORDS },
  now = Date.now(),
): Promise<VulnChanges> {
  const [changed, running] = await db.batch<{ id?: string; changed_at?: string; at?: string | null }>([
    db.prepare('SELECT id, changed_at FROM vuln_imports WHERE changed_at > ?1 ORDER BY changed_at, id').bind(since),
    db.prepare('SELECT min(started_at) AS at FROM vuln_imports WHERE finished_at IS NULL AND started_at > ?1').bind(new Date(now - IMPORT_RUNNING_MS).toISOString()),
  ]);
  const imports = (changed?.results ?? []) as { id: string; changed_at: string }[];
  const newest = imports.at(-1)?.changed_at ?? null;
  const runningSince = running?.results[0]?.at ?? null;
  const through = newest !== null && runningSince !== null ? (newest < runningSince ? newest : runningSince) : newest ?? runningSince;
  const packages = new Map<string, PackageKey>();
  const records: string[] = [];
  for (const { id: importId } of imports) {
    let after = '';
    for (;;) {
      const { results } = await db.prepare(
        `SELECT r.id, p.ecosystem, p.name FROM (SELECT id FROM vuln_records WHERE import_id = ?1 AND id > ?2 ORDER BY id LIMIT ?3) r
         LEFT JOIN vuln_packages p ON p.record_id = r.id ORDER BY r.id`,
      ).bind(importId, after, CHANGES_PAGE).all<Row>();
      let read = 0;
      for (const row of results) {
        if (row.id !== after) {
          records.push(row.id);
          after = row.id;
          read++;
        }
        if (row.ecosystem !== null && row.name !== null) packages.set(`${row.ecosystem}\u0000${row.name}`, { ecosystem: row.ecosystem, name: row.name });
      }
      if (records.length > caps.records || packages.size > caps.packages) return { through, complete: false };
      if (read < CHANGES_PAGE) break;
    }
  }
  return { through, complete: true, packages: [...packages.values()], records };
}

/**
 * Where a project's components of a package are, by their canonical package URL (`contents.purl`):
 * `loose` ranges hold every purl starting with `prefix`; the others hold `prefix` itself and what
 * continues it with `@`, `?` or `#` (a version, qualifiers, a subpath).
 */
export interface PurlRange {
  prefix: string;
  loose: boolean;
}

/** Every package URL: what a re-match of every component reads. */
export const ALL_PURLS: PurlRange = { prefix: 'pkg:', loose: true };

/** OSV ecosystems (their base) and the package URL type their packages are written with (src/analysis/vulns/ecosystem.ts packageOf). */
const PURL_TYPE = new Map([
  ['npm', 'npm'], ['Go', 'golang'], ['Maven', 'maven'], ['PyPI', 'pypi'], ['NuGet', 'nuget'], ['RubyGems', 'gem'], ['crates.io', 'cargo'],
  ['Packagist', 'composer'], ['Hex', 'hex'], ['Pub', 'pub'], ['CRAN', 'cran'], ['Hackage', 'hackage'], ['SwiftURL', 'swift'],
]);
/** OS packages are matched by their source package (a qualifier), so every package of the type is a candidate. */
const OS_TYPES = new Map([
  ['Debian', ['deb']], ['Ubuntu', ['deb']],
  ['Alpine', ['apk', 'alpine']], ['Wolfi', ['apk']], ['Chainguard', ['apk']],
  ['Red Hat', ['rpm']], ['AlmaLinux', ['rpm']], ['Rocky Linux', ['rpm']], ['SUSE', ['rpm']], ['openSUSE', ['rpm']], ['Mageia', ['rpm']], ['openEuler', ['rpm']],
]);

const typeRange = (type: string): PurlRange => ({ prefix: `pkg:${type}/`, loose: true });

/** Splits an OSV name into the purl's namespace and name: at the first `:` (Maven), the last `/` (npm scopes, Go, Packagist, Swift). */
function splitName(type: string, name: string): [string | undefined, string] {
  const at = type === 'maven' ? name.indexOf(':') : ['npm', 'golang', 'composer', 'swift'].includes(type) ? name.lastIndexOf('/') : -1;
  return at > 0 ? [name.slice(0, at), name.slice(at + 1)] : [undefined, name];
}

/**
 * The ranges of package URLs whose package (packageOf) may be this OSV package: a superset, which the
 * caller narrows by parsing each purl found. Exact where the purl spells the name as OSV does; the whole
 * type where it need not (OS packages by source package, NuGet names of any case); a PyPI name with
 * separators by what precedes its first one (PEP 503 names join `.`, `_` and `-`). An ecosystem no
 * purl names has none.
 */
export function purlRanges(pkg: PackageKey): PurlRange[] {
  const base = ecosystemBase(pkg.ecosystem);
  const os = OS_TYPES.get(base);
  if (os) return os.map(typeRange);
  const type = PURL_TYPE.get(base);
  if (!type || !pkg.name) return [];
  if (type === 'nuget') return [typeRange(type)];
  if (type === 'pypi') {
    const name = pep503(pkg.name);
    const cut = name.indexOf('-');
    return cut < 0 ? [{ prefix: `pkg:pypi/${name}`, loose: false }] : cut === 0 ? [typeRange(type)] : [{ prefix: `pkg:pypi/${name.slice(0, cut)}`, loose: true }];
  }
  try {
    const [namespace, name] = splitName(type, pkg.name);
    return [{ prefix: new PackageURL(type, namespace, name, undefined, undefined, undefined).toString(), loose: false }];
  } catch {
    return [typeRange(type)];
  }
}

/** The ranges of many packages, once each, in prefix order; an exact range inside a loose one is left out. */
export function rangesOf(packages: PackageKey[]): PurlRange[] {
  const unique = new Map<string, PurlRange>();
  for (const range of packages.flatMap(purlRanges)) {
    const key = `${range.loose ? 1 : 0}${range.prefix}`;
    unique.set(key, range);
  }
  const sorted = [...unique.values()].sort((a, b) => (a.prefix < b.prefix ? -1 : a.prefix > b.prefix ? 1 : Number(b.loose) - Number(a.loose)));
  const out: PurlRange[] = [];
  let cover: string | null = null;
  for (const range of sorted) {
    if (cover !== null && range.prefix.startsWith(cover)) continue;
    out.push(range);
    cover = range.loose ? range.prefix : null;
  }
  return out;
}

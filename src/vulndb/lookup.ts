// Reading the vulnerability database: the records naming a page of packages, in one query, and the
// identity of the data (for report provenance).
import type { OsvRecord, PackageKey } from '../analysis/vulns/osv-types';

const keyOf = (p: PackageKey) => `${p.ecosystem}\u0000${p.name}`;
const baseOf = (ecosystem: string) => ecosystem.split(':')[0]!;

/**
 * The records (not withdrawn) whose affected packages include each asked package, keyed by
 * `ecosystem\0name` as asked. Records are found by the ecosystem's base name (`Debian` for
 * `Debian:12`); an asked suffix keeps records of that suffix or of none, a bare ask keeps every suffix.
 * The list is bound as one JSON parameter, so any number of packages is one query.
 */
export async function lookupRecords(db: D1Database, packages: PackageKey[]): Promise<Map<string, OsvRecord[]>> {
  const found = new Map<string, OsvRecord[]>();
  if (!packages.length) return found;
  const pairs = [...new Map(packages.map((p) => [`${baseOf(p.ecosystem)}\u0000${p.name}`, [baseOf(p.ecosystem), p.name]])).values()];
  const { results } = await db.prepare(
    `SELECT p.base, p.ecosystem, p.name, r.id, r.record FROM vuln_packages p JOIN vuln_records r ON r.id = p.record_id
     WHERE r.withdrawn IS NULL AND (p.base, p.name) IN (SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(?))`,
  ).bind(JSON.stringify(pairs)).all<{ base: string; ecosystem: string; name: string; id: string; record: string }>();
  const parsed = new Map<string, OsvRecord>();
  for (const asked of packages) {
    const list: OsvRecord[] = [];
    for (const row of results) {
      if (row.name !== asked.name || row.base !== baseOf(asked.ecosystem)) continue;
      const suffixed = asked.ecosystem.includes(':');
      if (suffixed && row.ecosystem.includes(':') && row.ecosystem !== asked.ecosystem) continue;
      if (list.some((r) => r.id === row.id)) continue;
      let record = parsed.get(row.id);
      if (!record) parsed.set(row.id, (record = JSON.parse(row.record) as OsvRecord));
      list.push(record);
    }
    if (list.length) found.set(keyOf(asked), list);
  }
  return found;
}

export interface VulnDataSnapshot {
  /** Changes whenever the data does: record count, newest `modified`, last import. */
  version: string;
  records: number;
  lastModified: string | null;
  importedAt: string | null;
}

export async function vulnDataSnapshot(db: D1Database): Promise<VulnDataSnapshot> {
  const stats = await db.prepare('SELECT count(*) AS n, max(modified) AS m FROM vuln_records').first<{ n: number; m: string | null }>();
  const last = await db.prepare('SELECT finished_at AS at FROM vuln_imports WHERE finished_at IS NOT NULL ORDER BY finished_at DESC LIMIT 1').first<{ at: string }>();
  const records = stats?.n ?? 0;
  const lastModified = stats?.m ?? null;
  return { version: `${records}:${lastModified ?? '-'}`, records, lastModified, importedAt: last?.at ?? null };
}

// Reading the vulnerability database: the records naming a list of packages (bulk, a few queries for
// a thousand packages), and the identity of the data for report provenance.
import { ecosystemCovers, packageKey, packageNameKey } from '../analysis/vulns/osv';
import { ecosystemBase } from '../analysis/vulns/versions/index';
import type { OsvRecord, PackageKey } from '../analysis/vulns/osv-types';

/** Packages per lookup query: the list is one JSON parameter, so this bounds the answer, not the parameters. */
export const LOOKUP_PAGE = 500;

/**
 * Records already read, by id: a large SBOM's batches ask for the same popular packages again and
 * again, and a record's JSON (hundreds of listed versions) is the bulk of a lookup's answer. Holds at
 * most `size` records (their ids go into each query), started afresh when full.
 */
export class RecordCache {
  readonly records = new Map<string, OsvRecord>();
  /** The ids held as the query's JSON parameter, and how many records it lists: records are only added between clears, so the same count is the same ids. */
  private idsJson: { count: number; text: string } | null = null;
  constructor(private readonly size = 1_000) {}

  /** The ids held, after starting afresh when full (before a lookup, never during one: its answer relies on them). */
  idsBeforeLookup(): string[] {
    if (this.records.size >= this.size) {
      this.records.clear();
      this.idsJson = null;
    }
    return [...this.records.keys()];
  }

  /**
   * The same as JSON text, made again only when records were added: a large SBOM's batches mostly read
   * nothing new, and a thousand ids each batch were tens of kilobytes of garbage per lookup.
   */
  idsJsonBeforeLookup(): string {
    const ids = this.records.size >= this.size || this.idsJson?.count !== this.records.size ? this.idsBeforeLookup() : null;
    if (ids) this.idsJson = { count: ids.length, text: JSON.stringify(ids) };
    return this.idsJson!.text;
  }
}


interface Row {
  base: string;
  key: string;
  ecosystem: string;
  id: string;
  record: string | null;
}

/**
 * The records (never withdrawn ones) whose affected entries name each asked package in its ecosystem
 * (one query per `page` packages),
 * keyed by `${ecosystem}\0${name}` as asked; packages without records are absent from the map. Names
 * and releases compare as matching compares them (osv.ts packageNameKey, ecosystemCovers): an asked
 * release (`Debian:11`) finds its own records and the bare ecosystem's, a bare ask finds every release.
 */
export async function lookupRecords(db: D1Database | D1DatabaseSession, packages: PackageKey[], known: RecordCache = new RecordCache(), page = LOOKUP_PAGE): Promise<Map<string, OsvRecord[]>> {
  const found = new Map<string, OsvRecord[]>();
  // Nothing per asked package lives across the queries' awaits: the dedupe set and the pairs are
  // garbage before the first one (held across it, V8 promoted them for every batch of a
  // million-component analysis), and only the pairs that have records are kept after.
  const pages = pairPages(packages, page);
  if (!pages.length) return found;
  const byPair = new Map<string, Row[]>();
  const records = known.records;
  const knownIds = known.idsJsonBeforeLookup();
  for (const asked of pages) {
    // Each record's JSON comes once per query (row_number), however many asked packages it names, and
    // not at all when the caller holds it already (?2).
    const { results } = await db.prepare(
      `SELECT h.base, h.key, h.ecosystem, h.id,
         CASE WHEN row_number() OVER (PARTITION BY h.id) = 1 AND h.id NOT IN (SELECT value FROM json_each(?2)) THEN r.record END AS record
       FROM (SELECT p.base, p.name_key AS key, p.ecosystem, p.record_id AS id FROM json_each(?1) q
             JOIN vuln_packages p ON p.base = json_extract(q.value, '$[0]') AND p.name_key = json_extract(q.value, '$[1]')) h
       JOIN vuln_records r ON r.id = h.id WHERE r.withdrawn IS NULL`,
    ).bind(asked, knownIds).all<Row>();
    for (const row of results) {
      if (row.record !== null && !records.has(row.id)) records.set(row.id, JSON.parse(row.record) as OsvRecord);
      const k = `${row.base}\u0000${row.key}`;
      const list = byPair.get(k);
      if (list) list.push(row);
      else byPair.set(k, [row]);
    }
  }
  if (!byPair.size) return found;
  for (const asked of packages) {
    const rows = byPair.get(pairKey(asked));
    if (!rows) continue;
    const key = packageKey(asked);
    if (found.has(key)) continue;
    const ids = new Set<string>();
    for (const row of rows) if (ecosystemCovers(row.ecosystem, asked.ecosystem)) ids.add(row.id);
    const list = [...ids].map((id) => records.get(id)!).filter(Boolean);
    if (list.length) found.set(key, list);
  }
  return found;
}

/** The asked package's (base, name key) pair as one string, as the answer's rows are grouped. */
const pairKey = (p: PackageKey) => `${ecosystemBase(p.ecosystem)}\u0000${packageNameKey(p.ecosystem, p.name)}`;

/** Each distinct (base, name key) pair of the packages, as the JSON parameters of queries of `page` pairs. */
function pairPages(packages: PackageKey[], page: number): string[] {
  const seen = new Set<string>();
  const pairs: [string, string][] = [];
  for (const p of packages) {
    const key = pairKey(p);
    if (seen.has(key)) continue;
    seen.add(key);
    pairs.push([ecosystemBase(p.ecosystem), packageNameKey(p.ecosystem, p.name)]);
  }
  const pages: string[] = [];
  for (let i = 0; i < pairs.length; i += page) pages.push(JSON.stringify(pairs.slice(i, i + page)));
  return pages;
}

export interface VulnDataSnapshot {
  /** Changes whenever the data does (a hash of the count, the newest `modified` and the last change); the same data, the same version. */
  version: string;
  records: number;
  /** The newest `modified` of any record. */
  lastModified: string | null;
  /** When an import last changed the data. */
  importedAt: string | null;
}

/** The identity of the vulnerability data, for report provenance. */
export async function vulnDataSnapshot(db: D1Database): Promise<VulnDataSnapshot> {
  const [stats, last] = await db.batch<{ n?: number; m?: string | null; at?: string | null }>([
    db.prepare('SELECT count(*) AS n, max(modified) AS m FROM vuln_records'),
    db.prepare('SELECT max(changed_at) AS at FROM vuln_imports'),
  ]);
  const records = stats?.results[0]?.n ?? 0;
  const m = stats?.results[0]?.m ?? null;
  // Stored keys carry nanoseconds (import.ts modifiedKey); milliseconds read better.
  const lastModified = m && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$/.test(m) ? `${m.slice(0, 23)}Z` : m;
  const importedAt = last?.results[0]?.at ?? null;
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(`${records}|${m ?? ''}|${importedAt ?? ''}`)));
  const version = `osv-${[...digest.slice(0, 8)].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
  return { version, records, lastModified, importedAt };
}

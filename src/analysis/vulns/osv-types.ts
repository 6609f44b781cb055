// The parts of an OSV record (https://ossf.github.io/osv-schema/) that matching reads. Records are
// stored whole; these types name only what the code looks at.

export interface OsvEvent {
  introduced?: string;
  fixed?: string;
  last_affected?: string;
  limit?: string;
}

export interface OsvRange {
  type: 'SEMVER' | 'ECOSYSTEM' | 'GIT' | string;
  repo?: string;
  events: OsvEvent[];
  database_specific?: Record<string, unknown>;
}

export interface OsvSeverity {
  type: 'CVSS_V2' | 'CVSS_V3' | 'CVSS_V4' | 'Ubuntu' | string;
  score: string;
}

export interface OsvAffected {
  package?: { ecosystem: string; name: string; purl?: string };
  severity?: OsvSeverity[];
  ranges?: OsvRange[];
  versions?: string[];
  ecosystem_specific?: Record<string, unknown>;
  database_specific?: Record<string, unknown>;
}

export interface OsvRecord {
  id: string;
  modified: string;
  published?: string;
  withdrawn?: string;
  aliases?: string[];
  related?: string[];
  summary?: string;
  details?: string;
  severity?: OsvSeverity[];
  affected?: OsvAffected[];
  references?: { type: string; url: string }[];
  database_specific?: Record<string, unknown>;
  schema_version?: string;
}

/** A package as OSV names it: the ecosystem (e.g. `npm`, `Maven`, `Debian:12`) and the package name in it. */
export interface PackageKey {
  ecosystem: string;
  name: string;
}

export type SeverityLabel = 'critical' | 'high' | 'medium' | 'low' | 'unknown';

/** One advisory that affects one installed component. */
export interface AdvisoryMatch {
  id: string;
  /** Other ids of the same vulnerability (CVE ids first). */
  aliases: string[];
  summary: string | null;
  /** `type` says which CVSS version gave the score (`CVSS_V4`, `CVSS_V3`, `CVSS_V2`), null for a stated label. */
  severity: { label: SeverityLabel; score: number | null; vector: string | null; type: string | null };
  /** The smallest version above the installed one that this advisory's matching ranges call fixed, when one is known. */
  fixed_version: string | null;
  published: string | null;
  modified: string;
}

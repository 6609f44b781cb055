// The synthetic world the benchmark data is drawn from (src/routes/dev/bench-seed.ts): vulnerable
// packages shared across subjects with skewed popularity, so a fix row reaches many subjects as in a real
// portfolio (400 packages with 1 to 8 advisories each by default, three of them crypto libraries), their
// synthetic OSV records, the crypto library components subjects hold (node-forge 0.10.0, BouncyCastle
// 1.78, OpenSSL 3.0.2, ...) and filler packages nothing affects. Everything is generated from the
// parameters and a seed, so every call (and every slice of subjects) sees the same catalogue.
import { seededRandom, type Rng } from '../../lib/random';
import { packageKey } from '../../analysis/vulns/osv';
import type { OsvRecord } from '../../analysis/vulns/osv-types';
import { packageOf } from '../../analysis/vulns/ecosystem';

/** What the catalogue depends on: the number of vulnerable packages and the seed. */
export interface CatalogueParams {
  /** Distinct vulnerable packages. */
  packages: number;
  seed: number;
}

// ---- deterministic randomness ----

export const mix = (...parts: number[]) => parts.reduce((h, p) => Math.imul(h ^ (p >>> 0), 0x9e3779b1) >>> 0, 0x811c9dc5);
export const int = (r: Rng, min: number, max: number) => min + Math.floor(r() * (max - min + 1));
export const pick = <T>(r: Rng, list: readonly T[]): T => list[Math.floor(r() * list.length)]!;
export function weighted<T>(r: Rng, list: readonly (readonly [T, number])[]): T {
  let x = r() * list.reduce((s, [, w]) => s + w, 0);
  for (const [value, w] of list) if ((x -= w) < 0) return value;
  return list[list.length - 1]![0];
}

/** Index in 0..n-1 with Zipf-like popularity (index 0 the most used). */
export function zipfIndex(r: Rng, cumulative: Float64Array): number {
  const x = r() * cumulative[cumulative.length - 1]!;
  let lo = 0;
  let hi = cumulative.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cumulative[mid]! > x) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

function zipf(n: number, s = 1): Float64Array {
  const out = new Float64Array(n);
  let sum = 0;
  for (let i = 0; i < n; i++) out[i] = sum += 1 / (i + 1) ** s;
  return out;
}

// ---- packages ----

export type Ecosystem = 'npm' | 'maven' | 'pypi';
export const ECOSYSTEMS: readonly Ecosystem[] = ['npm', 'maven', 'pypi'];

// Words that no crypto library's name contains (the scoring store filters components by those names).
const FIRST = ['fast', 'quick', 'smart', 'tiny', 'deep', 'micro', 'super', 'easy', 'safe', 'pretty', 'simple', 'lite', 'open', 'clean', 'rapid', 'hyper', 'neat', 'bright', 'silver', 'little'];
const SECOND = ['json', 'yaml', 'date', 'log', 'cache', 'parse', 'stream', 'queue', 'color', 'path', 'glob', 'mime', 'form', 'router', 'event', 'buffer', 'merge', 'config', 'schema', 'retry', 'table', 'chart', 'grid', 'text', 'time', 'image', 'mail', 'query', 'store', 'state'];

interface Package {
  ecosystem: Ecosystem;
  /** The purl without a version. */
  base: string;
  name: string;
  group: string | null;
  versions: string[];
}

function packageAt(ecosystem: Ecosystem, index: number, r: Rng): Package {
  const a = FIRST[index % FIRST.length]!;
  const b = SECOND[Math.floor(index / FIRST.length) % SECOND.length]!;
  const round = Math.floor(index / (FIRST.length * SECOND.length));
  const name = `${a}-${b}${round ? `-${round + 1}` : ''}`;
  const versions = Array.from({ length: int(r, 2, 5) }, (_, i) => `${1 + Math.floor(i / 2)}.${int(r, 0, 9)}.${int(r, 0, 20)}`);
  if (ecosystem === 'maven') {
    const group = `org.${b}${round ? round + 1 : ''}`;
    return { ecosystem, base: `pkg:maven/${group}/${name}`, name, group, versions };
  }
  return { ecosystem, base: `pkg:${ecosystem}/${name}`, name, group: null, versions };
}

/** A crypto library a subject may hold: its component, and the advisories it has (when any). */
export interface Library {
  stack: Ecosystem | 'any';
  share: number;
  purl: string;
  name: string;
  group: string | null;
  version: string;
  /** How many advisories name it (fixed in the next minor releases). */
  advisories: number;
}

export const LIBRARIES: Library[] = [
  { stack: 'npm', share: 0.6, purl: 'pkg:npm/node-forge@0.10.0', name: 'node-forge', group: null, version: '0.10.0', advisories: 3 },
  { stack: 'npm', share: 0.3, purl: 'pkg:npm/crypto-js@4.1.1', name: 'crypto-js', group: null, version: '4.1.1', advisories: 0 },
  { stack: 'maven', share: 0.6, purl: 'pkg:maven/org.bouncycastle/bcprov-jdk18on@1.78', name: 'bcprov-jdk18on', group: 'org.bouncycastle', version: '1.78', advisories: 1 },
  { stack: 'maven', share: 0.25, purl: 'pkg:maven/org.bouncycastle/bcprov-jdk15on@1.70', name: 'bcprov-jdk15on', group: 'org.bouncycastle', version: '1.70', advisories: 0 },
  { stack: 'pypi', share: 0.7, purl: 'pkg:pypi/cryptography@41.0.7', name: 'cryptography', group: null, version: '41.0.7', advisories: 2 },
  { stack: 'pypi', share: 0.3, purl: 'pkg:pypi/pycryptodome@3.19.0', name: 'pycryptodome', group: null, version: '3.19.0', advisories: 0 },
  { stack: 'any', share: 0.4, purl: 'pkg:generic/openssl@3.0.2', name: 'openssl', group: null, version: '3.0.2', advisories: 0 },
];

const CVSS_V3 = [
  'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', // 9.8
  'CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:U/C:H/I:H/A:H', // 8.8
  'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H', // 7.5
  'CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:U/C:H/I:N/A:N', // 6.5
  'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N', // 5.3
  'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:L/I:N/A:N', // 3.7
];
const LABELS = ['CRITICAL', 'HIGH', 'MODERATE', 'LOW'];
const WEAKNESSES = ['Prototype pollution', 'Regular expression denial of service', 'Path traversal', 'Deserialization of untrusted data', 'Cross-site scripting', 'Improper input validation', 'Uncontrolled resource consumption', 'Signature verification bypass'];
const ID_CHARS = 'bcdfghjklmnpqrstvwxz'; // no real GHSA id uses b, d, k, l, n, s, t or z, so these never collide with the starter set

/** One synthetic OSV record affecting `pkg` below `fixed` (or every version when null), from `introduced`. */
function advisoryRecord(r: Rng, osv: { ecosystem: string; name: string }, label: string, introduced: string, fixed: string | null): OsvRecord {
  const id = `GHSA-${Array.from({ length: 3 }, () => Array.from({ length: 4 }, () => pick(r, [...ID_CHARS])).join('')).join('-')}`;
  const cve = `CVE-${int(r, 2019, 2025)}-${int(r, 10000, 59999)}`;
  const year = int(r, 2020, 2025);
  const published = `${year}-${String(int(r, 1, 12)).padStart(2, '0')}-${String(int(r, 1, 28)).padStart(2, '0')}T12:00:00Z`;
  const severityKind = r();
  return {
    id, aliases: [cve], modified: published, published, summary: `${pick(r, WEAKNESSES)} in ${label}`,
    details: `A synthetic advisory written by the scoring benchmark's seed (${label}).`,
    ...(severityKind < 0.55 ? { severity: [{ type: 'CVSS_V3', score: pick(r, CVSS_V3) }] } : {}),
    ...(severityKind >= 0.55 && severityKind < 0.9 ? { database_specific: { severity: pick(r, LABELS) } } : {}),
    affected: [{
      package: { ecosystem: osv.ecosystem, name: osv.name },
      ranges: [{ type: 'ECOSYSTEM', events: fixed ? [{ introduced }, { fixed }] : [{ introduced }] }],
    }],
    schema_version: '1.6.0',
  };
}

export interface Catalogue {
  /** Vulnerable packages by ecosystem, most used first. */
  byEcosystem: Record<Ecosystem, Package[]>;
  popularity: Record<Ecosystem, Float64Array>;
  /** Records by packageKey (what vulnFindings matches against). */
  records: Map<string, OsvRecord[]>;
  all: OsvRecord[];
  filler: Record<Ecosystem, Package[]>;
  fillerPopularity: Float64Array;
}

const FILLER_PER_ECOSYSTEM = 2000;
const catalogues = new Map<string, Catalogue>();

/** The packages, their advisories and the filler packages of these parameters (the same in every call). */
export function catalogueOf(params: CatalogueParams): Catalogue {
  const id = `${params.seed}|${params.packages}`;
  const known = catalogues.get(id);
  if (known) return known;
  const r = seededRandom(mix(params.seed, 7));
  const records = new Map<string, OsvRecord[]>();
  const all: OsvRecord[] = [];
  const add = (purl: string, label: string, count: number, versions: string[]) => {
    const osv = packageOf(`${purl}@0`)!;
    const list: OsvRecord[] = [];
    const top = versions.map((v) => Number(v.split('.')[0])).reduce((a, b) => Math.max(a, b), 0);
    for (let j = 0; j < count; j++) {
      // Most advisories affect every version in use; some only the newer line; about one in seven has no fix yet.
      const introduced = r() < 0.2 && top > 1 ? `${top}.0.0` : '0';
      const fixed = r() < 0.14 ? null : `${top + 1}.${j}.${int(r, 0, 3)}`;
      list.push(advisoryRecord(r, osv, label, introduced, fixed));
    }
    records.set(packageKey(osv), list);
    all.push(...list);
  };
  // The crypto libraries' advisories first (they count among the packages), fixed just above their version.
  const libraries = LIBRARIES.filter((l) => l.advisories > 0);
  for (const l of libraries) {
    const osv = packageOf(l.purl)!;
    const list = Array.from({ length: l.advisories }, (_, j) => {
      const [major, minor] = l.version.split('.').map(Number) as [number, number];
      return advisoryRecord(r, osv, l.name, '0', `${major}.${minor + 1 + j}${l.stack === 'maven' ? '' : '.0'}`);
    });
    records.set(packageKey(osv), list);
    all.push(...list);
  }
  const count = Math.max(0, params.packages - libraries.length);
  const byEcosystem: Record<Ecosystem, Package[]> = { npm: [], maven: [], pypi: [] };
  for (let i = 0; i < count; i++) {
    const ecosystem = weighted(r, [['npm', 0.5], ['maven', 0.3], ['pypi', 0.2]] as const);
    const pkg = packageAt(ecosystem, byEcosystem[ecosystem].length, r);
    byEcosystem[ecosystem].push(pkg);
    add(pkg.base, pkg.name, int(r, 1, 8), pkg.versions);
  }
  const filler = Object.fromEntries(ECOSYSTEMS.map((e) => [e, Array.from({ length: FILLER_PER_ECOSYSTEM }, (_, i) => packageAt(e, 1000 + i, r))])) as Record<Ecosystem, Package[]>;
  const catalogue: Catalogue = {
    byEcosystem, popularity: Object.fromEntries(ECOSYSTEMS.map((e) => [e, zipf(byEcosystem[e].length || 1)])) as Record<Ecosystem, Float64Array>,
    records, all, filler, fillerPopularity: zipf(FILLER_PER_ECOSYSTEM, 0.9),
  };
  catalogues.set(id, catalogue);
  return catalogue;
}

/** The synthetic OSV records (for the vulnerability database: simulation checks upgrades against them). */
export const benchRecords = (params: CatalogueParams): OsvRecord[] => catalogueOf(params).all;

/** The most used package of each ecosystem and the crypto libraries with an upgrade: package members for a portfolio. */
export function popularPackages(params: CatalogueParams): string[] {
  const { byEcosystem } = catalogueOf(params);
  return [...ECOSYSTEMS.flatMap((e) => byEcosystem[e].slice(0, 1).map((p) => p.base)), 'pkg:maven/org.bouncycastle/bcprov-jdk18on', 'pkg:npm/node-forge'];
}


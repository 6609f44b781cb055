// Local benchmarks only (reached through `POST /api/v1/dev/bench-seed`, behind DEV_SECRET): synthetic
// but realistically shaped analysis results written straight into a project's contents, as if every
// subject had been surveyed. `npm run bench:scoring` scores a 1,000-subject, 50,000-finding project
// without uploading a thousand bundles.
//
// Everything is generated from the parameters and a seed (a subject's data from its index alone), so a
// slice of subjects is one call and the route sends the slices one after another. The shapes are the
// analysis's own: components as `stagedRow` stores them, `vuln_finding` rows from `vulnFindings` over
// synthetic OSV records, `crypto_finding` rows from `cryptoFindings` over synthetic CBOM assets (with
// `provided_by` naming a crypto library component), then the subject's content pointers and its row.
// Packages and algorithms are shared across subjects with skewed popularity, so a fix row reaches many
// subjects as in a real portfolio: 400 packages with 1 to 8 advisories each (three of them crypto
// libraries), 30 algorithms and two TLS versions, crypto library components (node-forge 0.10.0,
// BouncyCastle 1.78, OpenSSL 3.0.2, ...).
import { seededRandom, type Rng } from '../lib/random';
import { cryptoFindings, packagedComponents, vulnFindings, type ProvidedBy } from '../analysis/findings';
import { packageKey } from '../analysis/vulns/osv';
import type { OsvRecord } from '../analysis/vulns/osv-types';
import { packageOf } from '../analysis/vulns/ecosystem';
import type { CryptoAsset } from '../analysis/types';
import type { JsonObject } from '../lib/json';
import { newOrderedId, nowIso } from '../lib/ids';
import type { Criticality } from '../scoring/model';
import type { AnalysisRow, ContentKind, FindingRow } from './analysis-store';
import { ensureImplicit } from './portfolios';
import type { ProjectState } from './project-object';
import { queuePurge } from './purges';
import { requestScoring } from './scoring-store';

export interface BenchSeedParams {
  /** Subjects are named `<prefix>-0001` ... */
  prefix: string;
  subjects: number;
  /** `vuln_finding` plus `crypto_finding` rows over all subjects. */
  findings: number;
  /** Components per subject on average (vulnerable ones and crypto libraries included). */
  components: number;
  /** Distinct vulnerable packages. */
  packages: number;
  seed: number;
}

export interface BenchSeedSlice extends BenchSeedParams {
  /** The first subject's index (0-based) and how many to write. */
  from: number;
  count: number;
}

export interface BenchSeedCounts {
  subjects: number;
  components: number;
  cryptoAssets: number;
  vulnFindings: number;
  cryptoFindings: number;
}

/** The share of a subject's findings that are advisories (the rest are classified crypto assets). */
const VULN_SHARE = 0.72;
const ATTEMPT = 1;
const SBOM = 'bom.cdx.json';
const CBOM = 'cbom.json';

// ---- deterministic randomness ----

const mix = (...parts: number[]) => parts.reduce((h, p) => Math.imul(h ^ (p >>> 0), 0x9e3779b1) >>> 0, 0x811c9dc5);
const int = (r: Rng, min: number, max: number) => min + Math.floor(r() * (max - min + 1));
const pick = <T>(r: Rng, list: readonly T[]): T => list[Math.floor(r() * list.length)]!;
function weighted<T>(r: Rng, list: readonly (readonly [T, number])[]): T {
  let x = r() * list.reduce((s, [, w]) => s + w, 0);
  for (const [value, w] of list) if ((x -= w) < 0) return value;
  return list[list.length - 1]![0];
}

/** Index in 0..n-1 with Zipf-like popularity (index 0 the most used). */
function zipfIndex(r: Rng, cumulative: Float64Array): number {
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

type Ecosystem = 'npm' | 'maven' | 'pypi';
const ECOSYSTEMS: readonly Ecosystem[] = ['npm', 'maven', 'pypi'];

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
interface Library {
  stack: Ecosystem | 'any';
  share: number;
  purl: string;
  name: string;
  group: string | null;
  version: string;
  /** How many advisories name it (fixed in the next minor releases). */
  advisories: number;
}

const LIBRARIES: Library[] = [
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

interface Catalogue {
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
export function catalogueOf(params: Pick<BenchSeedParams, 'packages' | 'seed'>): Catalogue {
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
export const benchRecords = (params: Pick<BenchSeedParams, 'packages' | 'seed'>): OsvRecord[] => catalogueOf(params).all;

/** The most used package of each ecosystem and the crypto libraries with an upgrade: package members for a portfolio. */
export function popularPackages(params: Pick<BenchSeedParams, 'packages' | 'seed'>): string[] {
  const { byEcosystem } = catalogueOf(params);
  return [...ECOSYSTEMS.flatMap((e) => byEcosystem[e].slice(0, 1).map((p) => p.base)), 'pkg:maven/org.bouncycastle/bcprov-jdk18on', 'pkg:npm/node-forge'];
}

/** Each subject's number of findings: skewed (a few large applications, many small ones), summing to the total. */
function findingTargets(params: BenchSeedParams): number[] {
  const r = seededRandom(mix(params.seed, 11));
  const weights = Array.from({ length: params.subjects }, () => 0.2 + 1.6 * r() ** 2);
  const sum = weights.reduce((a, b) => a + b, 0);
  const targets = weights.map((w) => Math.floor((params.findings * w) / sum));
  let left = params.findings - targets.reduce((a, b) => a + b, 0);
  for (let i = 0; left > 0; i = (i + 1) % targets.length, left--) targets[i]!++;
  return targets;
}

// ---- cryptography ----

const ALGORITHMS: readonly (readonly [string, string, number])[] = [
  // name, primitive, how common
  ['RSA-2048', 'pke', 10], ['RSA-3072', 'signature', 3], ['RSA-4096', 'signature', 3], ['RSA-1024', 'pke', 1], ['ECDSA-P256', 'signature', 6],
  ['ECDSA-P384', 'signature', 2], ['Ed25519', 'signature', 3], ['X25519', 'key-agree', 4], ['ECDH-P256', 'key-agree', 4], ['DH-2048', 'key-agree', 1],
  ['DSA-2048', 'signature', 1], ['SHA-1', 'hash', 6], ['MD5', 'hash', 4], ['SHA-224', 'hash', 1], ['SHA-256', 'hash', 10],
  ['SHA-384', 'hash', 3], ['SHA-512', 'hash', 3], ['SHA3-256', 'hash', 1], ['AES-128-GCM', 'ae', 6], ['AES-256-GCM', 'ae', 8],
  ['AES-128-CBC', 'block-cipher', 4], ['AES-128-ECB', 'block-cipher', 1], ['3DES', 'block-cipher', 1], ['DES', 'block-cipher', 0.5], ['RC4', 'stream-cipher', 0.5],
  ['ChaCha20-Poly1305', 'ae', 2], ['HMAC-SHA1', 'mac', 2], ['HMAC-SHA256', 'mac', 5], ['PBKDF2-SHA256', 'kdf', 2], ['ML-KEM-768', 'kem', 0.5],
];
const ALGORITHM_CHOICES = ALGORITHMS.map(([name, primitive, w]) => [[name, primitive], w] as const);
const SUITES = ['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', 'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384', 'TLS_RSA_WITH_AES_128_CBC_SHA'];
const TLS13_SUITES = ['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256'];

function sourceFile(stack: Ecosystem, subject: number, k: number, r: Rng): string {
  const line = int(r, 10, 900);
  if (stack === 'maven') return `src/main/java/com/example/app${subject}/security/Crypto${k % 7}.java:${line}`;
  if (stack === 'pypi') return `app/security/crypto_${k % 7}.py:${line}`;
  return `src/security/crypto-${k % 7}.ts:${line}`;
}

function cryptoAsset(r: Rng, stack: Ecosystem, subject: number, k: number, library: Library | null): { asset: CryptoAsset; provider: ProvidedBy | null } {
  const bomRef = `crypto-${subject}-${k}`;
  let asset: CryptoAsset;
  if (r() < 0.07) {
    const v13 = r() < 0.4;
    const suites = v13 ? TLS13_SUITES : r() < 0.3 ? SUITES.slice(0, 1) : SUITES;
    asset = { bomRef, name: 'TLS', assetType: 'protocol', protocol: { type: 'tls', version: v13 ? '1.3' : '1.2', cipherSuites: suites.map((name) => ({ name })) } };
  } else {
    const [name, primitive] = weighted(r, ALGORITHM_CHOICES);
    asset = { bomRef, name, assetType: 'algorithm', algorithm: { primitive } };
  }
  const how = r();
  let provider: ProvidedBy | null = null;
  if (library && how < 0.5) {
    provider = { name: library.name, purl: library.purl, bom_ref: library.purl };
    asset.locations = [`${library.name}/lib/${asset.name.toLowerCase()}.${stack === 'maven' ? 'class' : stack === 'pypi' ? 'py' : 'js'}:${int(r, 10, 900)}`];
  } else if (how < 0.8) {
    asset.locations = Array.from({ length: int(r, 1, 3) }, (_, i) => sourceFile(stack, subject, k + i, r));
  } else {
    asset.locations = [`config/security.${stack === 'maven' ? 'properties' : 'yaml'}:${int(r, 1, 80)}`];
  }
  asset.occurrences = Math.max(asset.locations.length, int(r, 1, 12));
  return { asset, provider };
}

// ---- one subject ----

interface Row {
  kind: ContentKind;
  key: string;
  purl: string | null;
  name: string;
  version: string | null;
  data: string;
}

const CRITICALITY: readonly (readonly [Criticality, number])[] = [['high', 0.15], ['medium', 0.35], ['low', 0.2], ['unclassified', 0.3]];

export const subjectName = (prefix: string, index: number) => `${prefix}-${String(index + 1).padStart(4, '0')}`;

function componentRow(c: { purl: string; name: string; group: string | null; version: string; listed: number }): Row & { component: AnalysisRow } {
  const data: JsonObject = { bomRef: c.purl, type: 'library', name: c.name, ...(c.group ? { group: c.group } : {}), version: c.version, purl: c.purl, licenses: ['MIT'], source: SBOM, listed: c.listed };
  return { kind: 'component', key: c.purl, purl: c.purl, name: c.name, version: c.version, data: JSON.stringify(data), component: { key: c.purl, name: c.name, purl: c.purl, version: c.version, data } };
}

const findingRow = (kind: 'vuln_finding' | 'crypto_finding', f: FindingRow, source: string): Row =>
  ({ kind, key: f.key, purl: f.purl, name: f.name, version: f.version, data: JSON.stringify({ ...f.data, source }) });

/** A subject's rows, from its index alone. */
function subjectRows(params: BenchSeedParams, catalogue: Catalogue, index: number, target: number): { criticality: Criticality; rows: Row[]; counts: BenchSeedCounts } {
  const r = seededRandom(mix(params.seed, 13, index));
  const stack = weighted(r, [['npm', 0.45], ['maven', 0.35], ['pypi', 0.2]] as const);
  const criticality = weighted(r, CRITICALITY);
  const components: ReturnType<typeof componentRow>[] = [];
  const held = new Set<string>();
  const hold = (c: Parameters<typeof componentRow>[0]) => {
    held.add(c.purl.slice(0, c.purl.lastIndexOf('@')));
    components.push(componentRow(c));
  };

  const libraries = LIBRARIES.filter((l) => (l.stack === stack || l.stack === 'any') && r() < l.share);
  for (const l of libraries) hold({ purl: l.purl, name: l.name, group: l.group, version: l.version, listed: 1 });
  const vulnTarget = Math.round(target * VULN_SHARE);
  // Vulnerable packages, most from the subject's own ecosystem, until its share of advisories is reached.
  const vulns: FindingRow[] = vulnFindings(packagedComponents(components.map((c) => c.component)), catalogue.records);
  for (let draws = 0; vulns.length < vulnTarget && draws < 500; draws++) {
    const ecosystem = r() < 0.85 ? stack : pick(r, ECOSYSTEMS);
    const list = catalogue.byEcosystem[ecosystem];
    if (!list.length) continue;
    const pkg = list[zipfIndex(r, catalogue.popularity[ecosystem])]!;
    if (held.has(pkg.base)) continue;
    const version = pick(r, pkg.versions);
    const row = componentRow({ purl: `${pkg.base}@${version}`, name: pkg.name, group: pkg.group, version, listed: r() < 0.2 ? int(r, 2, 6) : 1 });
    held.add(pkg.base);
    components.push(row);
    vulns.push(...vulnFindings(packagedComponents([row.component]), catalogue.records));
  }
  vulns.length = Math.min(vulns.length, vulnTarget);
  // Packages nothing affects, up to the subject's size.
  const size = Math.round(params.components * (0.5 + r()));
  for (let draws = 0; components.length < size && draws < size * 4; draws++) {
    const ecosystem = r() < 0.9 ? stack : pick(r, ECOSYSTEMS);
    const pkg = catalogue.filler[ecosystem][zipfIndex(r, catalogue.fillerPopularity)]!;
    if (held.has(pkg.base)) continue;
    const version = pick(r, pkg.versions);
    hold({ purl: `${pkg.base}@${version}`, name: pkg.name, group: pkg.group, version, listed: 1 });
  }

  const assets: AnalysisRow[] = [];
  const providers = new Map<string, ProvidedBy | null>();
  for (let k = 0; k < target - vulns.length; k++) {
    const { asset, provider } = cryptoAsset(r, stack, index, k, libraries.length ? pick(r, libraries) : null);
    const data = { ...asset, source: CBOM, listed: 1 } as unknown as JsonObject;
    assets.push({ key: asset.bomRef!, name: asset.name, purl: null, version: null, data });
    providers.set(asset.bomRef!, provider);
  }
  const crypto = cryptoFindings(assets, providers);

  const rows: Row[] = [
    ...components.map(({ component: _c, ...row }) => row),
    ...assets.map((a) => ({ kind: 'crypto_asset' as const, key: a.key, purl: null, name: a.name, version: null, data: JSON.stringify(a.data) })),
    ...vulns.map((f) => findingRow('vuln_finding', f, String(f.data.purl ?? ''))),
    ...crypto.map((f) => findingRow('crypto_finding', f, String(f.data.seen_in ?? ''))),
  ];
  return {
    criticality, rows,
    counts: { subjects: 1, components: components.length, cryptoAssets: assets.length, vulnFindings: vulns.length, cryptoFindings: crypto.length },
  };
}

// ---- writing ----

const SEED_KINDS: ContentKind[] = ['component', 'crypto_asset', 'crypto_finding', 'vuln_finding'];
const INSERT = 'INSERT OR REPLACE INTO contents (survey_id, attempt, kind, key, purl, name, version, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)';

/**
 * Writes a slice of subjects: each one's rows under a survey id of its own, then its content pointers
 * (the rows they pointed at before are queued for deletion, as a finished analysis does) and its
 * subject row; its scored findings are marked stale. One transaction per subject.
 */
export function seedSlice(state: ProjectState, input: BenchSeedSlice): BenchSeedCounts {
  const catalogue = catalogueOf(input);
  const targets = findingTargets(input);
  const totals: BenchSeedCounts = { subjects: 0, components: 0, cryptoAssets: 0, vulnFindings: 0, cryptoFindings: 0 };
  const end = Math.min(input.subjects, input.from + input.count);
  for (let index = input.from; index < end; index++) {
    const name = subjectName(input.prefix, index);
    const { criticality, rows, counts } = subjectRows(input, catalogue, index, targets[index]!);
    const surveyId = newOrderedId();
    const now = nowIso();
    state.db.transaction(() => {
      const old = state.sql.exec<{ survey_id: string; attempt: number }>('SELECT DISTINCT survey_id, attempt FROM subject_contents WHERE subject = ?', name).toArray();
      for (const o of old) queuePurge(state, o.survey_id, o.attempt, '*');
      state.sql.exec('DELETE FROM subject_contents WHERE subject = ?', name);
      for (const row of rows) state.sql.exec(INSERT, surveyId, ATTEMPT, row.kind, row.key, row.purl, row.name, row.version, row.data);
      for (const kind of SEED_KINDS) state.sql.exec('INSERT INTO subject_contents (subject, kind, survey_id, attempt) VALUES (?, ?, ?, ?)', name, kind, surveyId, ATTEMPT);
      state.sql.exec(
        `INSERT INTO subjects (name, first_seen, last_seen, criticality, latest_survey_id) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET last_seen = excluded.last_seen, criticality = excluded.criticality, latest_survey_id = excluded.latest_survey_id`,
        name, now, now, criticality, surveyId);
      state.sql.exec('UPDATE subject_scores SET stale = 1 WHERE subject = ?', name);
    });
    for (const key of Object.keys(totals) as (keyof BenchSeedCounts)[]) totals[key] += counts[key];
  }
  return totals;
}

/**
 * Scoring from scratch: every subject's scored findings are marked stale (the next scoring recomputes
 * them from contents) and every portfolio is asked to be scored. Answers the portfolios asked for.
 */
export async function rescoreAll(state: ProjectState): Promise<{ portfolios: string[]; subjects: number }> {
  ensureImplicit(state);
  state.sql.exec('UPDATE subject_scores SET stale = 1');
  const ids = state.sql.exec<{ id: string }>('SELECT id FROM portfolios WHERE deleted_at IS NULL').toArray().map((p) => p.id);
  await requestScoring(state, ids, 'survey');
  const subjects = state.sql.exec<{ n: number }>('SELECT count(*) AS n FROM subjects').one().n;
  return { portfolios: ids, subjects };
}

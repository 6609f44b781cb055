// One synthetic subject's analysis results, from its index alone (src/routes/dev/bench-seed.ts writes
// them). The shapes are the analysis's own: components as `stagedRow` stores them, `vuln_finding` rows
// from `vulnFindings` over the catalogue's OSV records, `crypto_finding` rows from `cryptoFindings` over
// synthetic CBOM assets (with `provided_by` naming a crypto library component): 30 algorithms and two
// TLS versions, in source files, library code or configuration.
import { seededRandom, type Rng } from '../../lib/random';
import { cryptoFindings, packagedComponents, vulnFindings, type ProvidedBy } from '../../analysis/findings';
import type { AnalysisRow, CryptoAsset, FindingRow } from '../../analysis/types';
import type { JsonObject } from '../../lib/json';
import type { Criticality } from '../../scoring/model';
import type { ContentKind } from '../../analysis/types';
import { ECOSYSTEMS, int, LIBRARIES, mix, pick, weighted, zipfIndex, type Catalogue, type CatalogueParams, type Ecosystem, type Library } from './bench-catalogue';

export interface BenchSeedParams extends CatalogueParams {
  /** Subjects are named `<prefix>-0001` ... */
  prefix: string;
  subjects: number;
  /** `vuln_finding` plus `crypto_finding` rows over all subjects. */
  findings: number;
  /** Components per subject on average (vulnerable ones and crypto libraries included). */
  components: number;
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
const SBOM = 'bom.cdx.json';
const CBOM = 'cbom.json';

/** Each subject's number of findings: skewed (a few large applications, many small ones), summing to the total. */
export function findingTargets(params: BenchSeedParams): number[] {
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

export interface ContentRow {
  kind: ContentKind;
  key: string;
  purl: string | null;
  name: string;
  version: string | null;
  data: string;
}

const CRITICALITY: readonly (readonly [Criticality, number])[] = [['high', 0.15], ['medium', 0.35], ['low', 0.2], ['unclassified', 0.3]];

export const subjectName = (prefix: string, index: number) => `${prefix}-${String(index + 1).padStart(4, '0')}`;

function componentRow(c: { purl: string; name: string; group: string | null; version: string; listed: number }): ContentRow & { component: AnalysisRow } {
  const data: JsonObject = { bomRef: c.purl, type: 'library', name: c.name, ...(c.group ? { group: c.group } : {}), version: c.version, purl: c.purl, licenses: ['MIT'], source: SBOM, listed: c.listed };
  return { kind: 'component', key: c.purl, purl: c.purl, name: c.name, version: c.version, data: JSON.stringify(data), component: { key: c.purl, name: c.name, purl: c.purl, version: c.version, data } };
}

const findingRow = (kind: 'vuln_finding' | 'crypto_finding', f: FindingRow, source: string): ContentRow =>
  ({ kind, key: f.key, purl: f.purl, name: f.name, version: f.version, data: JSON.stringify({ ...f.data, source }) });

/** A subject's rows, from its index alone. */
export function subjectRows(params: BenchSeedParams, catalogue: Catalogue, index: number, target: number): { criticality: Criticality; rows: ContentRow[]; counts: BenchSeedCounts } {
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

  const rows: ContentRow[] = [
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

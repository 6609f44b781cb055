// Crypto findings from a survey's crypto assets (held at once, at most MAX_CRYPTO_ASSETS): each asset
// classified (src/analysis/crypto) with the bom-refs it names and the assets the documents' dependency
// graph ties to it (AssetLinks), and one finding per certificate however many files hold it.
import type { JsonObject } from '../lib/json';
import { KEPT_LOCATIONS } from './components';
import { certificateIdentity, certificateStatement, shortDigest, subjectCommonName } from './crypto/certificate';
import { classifyAsset } from './crypto/classify';
import type { AnalysisRow, CryptoAsset, Dependency, FindingRow, ProvidedBy } from './types';

/** The links of one asset the classifier follows: far more than any real document ties to one asset. */
export const MAX_LINKS = 64;

/**
 * The crypto assets the documents' dependency graph ties to each crypto asset (`dependsOn` and
 * `provides` between two assets, either way), fed the dependency rows a page at a time; only edges
 * between two assets are kept. Keys are classified through it (docs/analysis.md, "Links").
 */
export class AssetLinks {
  private readonly refs = new Set<string>();
  private readonly out = new Map<string, string[]>();
  private readonly in = new Map<string, string[]>();

  constructor(rows: AnalysisRow[]) {
    for (const row of rows) {
      const ref = (row.data as unknown as CryptoAsset).bomRef;
      if (ref) this.refs.add(ref);
    }
  }

  addDependency(dependency: Dependency): void {
    const { ref } = dependency;
    if (!this.refs.has(ref)) return;
    for (const list of [dependency.dependsOn, dependency.provides]) {
      for (const target of Array.isArray(list) ? list : []) {
        if (target === ref || !this.refs.has(target)) continue;
        push(this.out, ref, target);
        push(this.in, target, ref);
      }
    }
  }

  /**
   * By bom-ref: what an asset's own lists name first, then the assets whose lists name it; each once,
   * at most MAX_LINKS (a hub that thousands of keys name must not make classifying them quadratic).
   */
  links(): Map<string, string[]> {
    const answer = new Map<string, string[]>();
    for (const ref of new Set([...this.out.keys(), ...this.in.keys()])) {
      answer.set(ref, [...new Set([...(this.out.get(ref) ?? []), ...(this.in.get(ref) ?? [])])].slice(0, MAX_LINKS));
    }
    return answer;
  }
}

const push = <K, V>(map: Map<K, V[]>, key: K, value: V) => {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
};

const fingerprintOf = (asset: CryptoAsset) => asset.certificate?.fingerprint ?? asset.relatedCryptoMaterial?.fingerprint ?? null;

/**
 * Certificates found at several paths (a `.pem` and a `.crt` of one file, a bundle and a single file)
 * are one finding: the finding key of each certificate row, by identity (certificateIdentity), and
 * where each certificate found more than once was found over all its copies. Two certificates a
 * document gives one identity but different names, serials or validity stay apart.
 */
function certificateCopies(rows: { row: AnalysisRow; asset: CryptoAsset }[], byRef: Map<string, CryptoAsset>): { keys: Map<string, string>; foundAt: Map<string, string[]> } {
  const groups = new Map<string, { row: AnalysisRow; asset: CryptoAsset }[]>();
  for (const x of rows) {
    const identity = x.asset.assetType === 'certificate' ? certificateIdentity(x.asset, byRef) : null;
    if (identity) push(groups, identity, x);
  }
  const keys = new Map<string, string>();
  const copies = new Map<string, string[][]>();
  for (const [identity, group] of groups) {
    const split = new Set(group.map((x) => certificateStatement(x.asset))).size > 1;
    for (const x of group) {
      const key = split ? `${identity}:${shortDigest(certificateStatement(x.asset))}` : identity;
      keys.set(x.row.key, key);
      push(copies, key, x.asset.evidence?.map((o) => o.location) ?? x.asset.locations ?? []);
    }
  }
  const foundAt = new Map<string, string[]>();
  for (const [key, found] of copies) if (found.length > 1) foundAt.set(key, [...new Set(found.flat())]);
  return { keys, foundAt };
}

/**
 * Classifies a survey's crypto assets; certificates and keys look their algorithms up by bom-ref and
 * through `links` (AssetLinks). `providedBy` (by row key, from ProviderGraph) names the library each
 * asset is used through. One certificate found at several paths is one finding with every occurrence.
 */
export function cryptoFindings(assets: AnalysisRow[], providedBy: Map<string, ProvidedBy | null> = new Map(), links?: Map<string, string[]>): FindingRow[] {
  const byRef = new Map<string, CryptoAsset>();
  const rows = assets.map((row) => ({ row, asset: row.data as unknown as CryptoAsset }));
  for (const { asset } of rows) if (asset.bomRef) byRef.set(asset.bomRef, asset);
  const context = { byRef, links };
  const { keys: certificates, foundAt } = certificateCopies(rows, byRef);
  const holders = new Map<string, string>();
  for (const { asset } of rows) {
    const key = asset.certificate?.subjectPublicKeyRef;
    if (asset.assetType === 'certificate' && key && !holders.has(key)) holders.set(key, asset.name);
  }
  const findings = new Map<string, FindingRow>();
  for (const { row, asset } of rows) {
    const key = certificates.get(row.key) ?? row.key;
    const same = findings.get(key);
    if (same) {
      merge(same.data, asset);
      continue;
    }
    // A certificate found at several paths is judged where it was found: all of them (a trust store only, or not).
    const locations = foundAt.get(key);
    const entry = classifyAsset(locations ? { ...asset, evidence: undefined, locations } : asset, context);
    // A key a certificate holds is named by it: a trust store's hundred keys are otherwise one name a hundred times.
    const holder = asset.assetType === 'related-crypto-material' && asset.bomRef ? holders.get(asset.bomRef) : undefined;
    if (holder) entry.name = `${entry.name} of ${holder}`;
    const certificate = asset.assetType === 'certificate' ? { subject_cn: subjectCommonName(asset) } : {};
    findings.set(key, {
      key, name: entry.name, purl: null, version: null,
      data: {
        ...entry, key, bom_ref: asset.bomRef ?? null, occurrences: asset.occurrences ?? null, locations: asset.locations ?? [], seen_in: row.data.source ?? null,
        provided_by: providedBy.get(row.key) ?? null, ...certificate, fingerprint: fingerprintOf(asset),
      } as unknown as JsonObject,
    });
  }
  return [...findings.values()];
}

/** The same certificate found again: its occurrences and locations join the first one's. */
function merge(data: JsonObject, asset: CryptoAsset): void {
  if (asset.occurrences !== undefined) data.occurrences = (data.occurrences ?? 0) + asset.occurrences;
  data.locations = [...new Set([...data.locations, ...(asset.locations ?? [])])].slice(0, KEPT_LOCATIONS);
  data.bom_refs = [...(data.bom_refs ?? [data.bom_ref]), asset.bomRef ?? null].slice(0, KEPT_LOCATIONS);
}


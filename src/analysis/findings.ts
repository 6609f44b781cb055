// Findings of both axes from what an analysis stored (plain functions; src/queues/findings.ts feeds
// them). `pqc`: every crypto asset and runtime observation classified (src/analysis/crypto), with the
// library that provides it when the documents' nesting or dependency graph says so (ProviderGraph).
// `vuln`: one finding per (component, advisory) from OSV records matched by package URL and version.
import type { JsonObject } from '../lib/json';
import type { AnalysisRow, Component, CryptoAsset, Dependency, FindingRow, Observation, ProvidedBy } from './types';
import { classifyObservation } from './crypto/classify';
import { packageOf } from './vulns/ecosystem';
import { matchPackage } from './vulns/match';
import { packageKey } from './vulns/osv';
import type { OsvRecord, PackageKey } from './vulns/osv-types';

export { AssetLinks, cryptoFindings } from './crypto-findings';
export type { ProvidedBy };

/** What matching needs of a stored component. */
type ComponentRow = Pick<AnalysisRow, 'key' | 'name' | 'purl' | 'version'>;

/** A component with the package its purl names (resolved once: purl parsing is the hot part of a large SBOM). */
export interface PackagedComponent {
  row: ComponentRow;
  pkg: PackageKey & { version: string | null };
}

/** The components whose package URL names a package OSV knows the ecosystem of. */
export function packagedComponents(rows: ComponentRow[]): PackagedComponent[] {
  return rows.flatMap((row) => {
    const pkg = row.purl ? packageOf(row.purl) : null;
    return pkg ? [{ row, pkg }] : [];
  });
}

/** Component types that provide cryptography to others. */
const LIBRARY_TYPES = new Set(['library', 'framework']);
/** Rounds of inheritance (an algorithm of a key of a certificate is three hops from what provides the certificate). */
const INHERITANCE_ROUNDS = 8;

const push = <K, V>(map: Map<K, V[]>, key: K, value: V) => {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
};

/**
 * Which library provides each crypto asset of a survey (docs/decisions.md, "Dependency graph and
 * provided_by"). Built from the survey's assets (held at once anyway), then fed the dependency rows a
 * page at a time, keeping only the entries that touch an asset; then fed the components it asks for
 * (`wantedRefs`) by bom-ref. In order, the first rule that names a component decides:
 * 1. the component the asset is nested in (any type but a crypto asset);
 * 2. a library or framework whose `provides` lists the asset;
 * 3. a library or framework whose `dependsOn` lists the asset;
 * 4. the first library or framework the asset's own `dependsOn` lists;
 * 5. a node whose `dependsOn` lists the asset and exactly one library or framework (a protocol that
 *    depends on OpenSSL and on its algorithms: they are used through OpenSSL; an application that
 *    depends on two libraries and two protocols says nothing about which serves which);
 * 6. inherited from a crypto asset that uses it: the asset it is nested in, a certificate's signature
 *    algorithm and public key, a key's algorithm, a protocol's algorithms (`cryptoRefArray`, cipher
 *    suites), an asset whose `dependsOn` lists it.
 * Among several nodes of one rule, the first in the order read (dependency rows come in key order).
 */
export class ProviderGraph {
  /** Assets by row key. */
  private readonly assets = new Map<string, CryptoAsset>();
  /** Row key by bom-ref (an asset with a bom-ref is stored under it). */
  private readonly keyOfRef = new Map<string, string>();
  private readonly providing = new Map<string, string[]>();
  private readonly dependents = new Map<string, string[]>();
  private readonly ownDeps = new Map<string, string[]>();
  private readonly listedWith = new Map<string, string[][]>();
  /** Assets (row keys) that use an asset (row key): it inherits their provider. */
  private readonly users = new Map<string, string[]>();
  private readonly wanted = new Set<string>();
  private readonly components = new Map<string, { name: string; purl: string | null; type: string }>();

  constructor(rows: AnalysisRow[]) {
    for (const row of rows) {
      const asset = row.data as unknown as CryptoAsset;
      this.assets.set(row.key, asset);
      if (asset.bomRef) this.keyOfRef.set(asset.bomRef, row.key);
    }
    for (const [key, asset] of this.assets) {
      if (asset.parentRef) {
        const parent = this.keyOfRef.get(asset.parentRef);
        if (parent) push(this.users, key, parent);
        else this.wanted.add(asset.parentRef);
      }
      const used = [
        asset.certificate?.signatureAlgorithmRef, asset.certificate?.subjectPublicKeyRef, asset.relatedCryptoMaterial?.algorithmRef,
        ...(asset.protocol?.cryptoRefs ?? []), ...(asset.protocol?.cipherSuites ?? []).flatMap((suite) => suite.algorithms ?? []),
      ];
      for (const ref of used) {
        const target = ref === undefined ? undefined : this.keyOfRef.get(ref);
        if (target && target !== key) push(this.users, target, key);
      }
    }
  }

  /** Whether there is anything to work out (a survey without crypto assets reads no graph). */
  get empty(): boolean {
    return this.assets.size === 0;
  }

  /** One dependency row's data: kept only as far as it touches an asset. */
  addDependency(dependency: Dependency): void {
    const { ref } = dependency;
    const dependsOn = Array.isArray(dependency.dependsOn) ? dependency.dependsOn : [];
    const provides = Array.isArray(dependency.provides) ? dependency.provides : [];
    const targets = dependsOn.flatMap((r) => this.keyOfRef.get(r) ?? []);
    const provided = provides.flatMap((r) => this.keyOfRef.get(r) ?? []);
    const self = this.keyOfRef.get(ref);
    if (!targets.length && !provided.length && !self) return;
    const others = dependsOn.filter((r) => !this.keyOfRef.has(r));
    if (self) {
      if (others.length) this.ownDeps.set(self, others);
      for (const target of targets) if (target !== self) push(this.users, target, self);
    } else {
      for (const target of provided) push(this.providing, target, ref);
      for (const target of targets) push(this.dependents, target, ref);
      if (targets.length || provided.length) this.wanted.add(ref);
    }
    if (targets.length && others.length) for (const target of targets) push(this.listedWith, target, others);
    if (others.length && (self || targets.length)) for (const r of others) this.wanted.add(r);
  }

  /** The bom-refs of the components the rules may name, not yet given. */
  wantedRefs(): string[] {
    return [...this.wanted].filter((ref) => !this.components.has(ref));
  }

  /** A component row found by bom-ref. */
  addComponent(row: AnalysisRow): void {
    const component = row.data as unknown as Component;
    if (component.bomRef && !this.components.has(component.bomRef)) {
      this.components.set(component.bomRef, { name: row.name, purl: row.purl, type: component.type });
    }
  }

  /** The provider of every asset, by row key (null when nothing says). */
  providers(): Map<string, ProvidedBy | null> {
    const library = (ref: string) => LIBRARY_TYPES.has(this.components.get(ref)?.type ?? '');
    const found = new Map<string, string>();
    for (const [key, asset] of this.assets) {
      const parent = asset.parentRef && !this.keyOfRef.has(asset.parentRef) && this.components.has(asset.parentRef) ? asset.parentRef : undefined;
      const alone = (this.listedWith.get(key) ?? []).map((list) => [...new Set(list.filter(library))]).find((libs) => libs.length === 1)?.[0];
      const provider = parent ?? this.providing.get(key)?.find(library) ?? this.dependents.get(key)?.find(library) ?? this.ownDeps.get(key)?.find(library) ?? alone;
      if (provider) found.set(key, provider);
    }
    for (let round = 0; round < INHERITANCE_ROUNDS; round++) {
      let changed = false;
      for (const key of this.assets.keys()) {
        if (found.has(key)) continue;
        const from = this.users.get(key)?.map((user) => found.get(user)).find((p) => p !== undefined);
        if (from) {
          found.set(key, from);
          changed = true;
        }
      }
      if (!changed) break;
    }
    const answer = new Map<string, ProvidedBy | null>();
    for (const key of this.assets.keys()) {
      const ref = found.get(key);
      const component = ref ? this.components.get(ref) : undefined;
      answer.set(key, ref && component ? { name: component.name, purl: component.purl, bom_ref: ref } : null);
    }
    return answer;
  }
}

/** Classifies one runtime observation; the entry counts how often the use was observed. */
export function runtimeFinding(row: AnalysisRow): FindingRow {
  const d = row.data;
  const observation: Observation = {
    algorithm: String(d.algorithm), keySize: d.keySizes?.[0], protocol: d.protocol ?? undefined, cipherSuite: d.cipherSuites?.[0],
    group: d.groups?.[0], library: d.library ?? undefined, count: Number(d.count ?? 0),
  };
  const entry = classifyObservation(observation);
  return {
    key: row.key, name: entry.name, purl: null, version: null,
    data: { ...entry, key: row.key, observed: observation.count, library: d.library ?? null, protocol: d.protocol ?? null, key_sizes: d.keySizes ?? [] } as unknown as JsonObject,
  };
}

/** The packages (OSV ecosystem and name) of a page of components, once each. */
export function packagesOf(components: PackagedComponent[]): PackageKey[] {
  const seen = new Map<string, PackageKey>();
  for (const { pkg } of components) seen.set(packageKey(pkg), { ecosystem: pkg.ecosystem, name: pkg.name });
  return [...seen.values()];
}

/**
 * Matches already made, by package and installed version: a bundle names the same version of a package
 * again and again (each service of a monorepo, each document of an archive), and matching one against
 * records listing hundreds of versions is the costly part. For one analysis (the records it reads do
 * not change under it); bounded, started afresh when full. Callers must not change what they get back.
 */
export class MatchMemo {
  private readonly matches = new Map<string, ReturnType<typeof matchPackage>>();
  constructor(private readonly size = 5_000) {}

  match(pkg: PackageKey, version: string, records: OsvRecord[]): ReturnType<typeof matchPackage> {
    const key = `${packageKey(pkg)}\u0000${version}`;
    let found = this.matches.get(key);
    if (!found) {
      if (this.matches.size >= this.size) this.matches.clear();
      found = matchPackage(pkg, version, records);
      // A version many advisories affect (a distribution's kernel) is not held: its list is large.
      if (found.advisories.length <= MEMO_MAX_ADVISORIES) this.matches.set(key, found);
    }
    return found;
  }
}

const MEMO_MAX_ADVISORIES = 100;

/** One finding per advisory affecting a component, with the component's own fix version (above every matched range). */
export function vulnFindings(components: PackagedComponent[], records: Map<string, OsvRecord[]>, memo = new MatchMemo()): FindingRow[] {
  const findings: FindingRow[] = [];
  for (const { row, pkg } of components) {
    const version = pkg.version ?? row.version;
    if (!version) continue;
    const candidates = records.get(packageKey(pkg));
    if (!candidates?.length) continue;
    const { advisories, fix_version } = memo.match(pkg, version, candidates);
    for (const advisory of advisories) {
      const cve = advisory.aliases.find((a: string) => a.startsWith('CVE-'));
      const explanation = `${row.name} ${version} is affected by ${advisory.id}${cve ? ` (${cve})` : ''}${advisory.summary ? `: ${advisory.summary.replace(/\.$/, '')}` : ''}.`
        + (fix_version ? ` Upgrade to ${fix_version} or later.` : ' No fixed version is known yet.');
      findings.push({
        key: `${advisory.id}|${row.key}`, name: row.name, purl: row.purl, version,
        data: {
          advisory_id: advisory.id, aliases: advisory.aliases, summary: advisory.summary, severity: advisory.severity,
          fixed_version: advisory.fixed_version, fix_version, published: advisory.published, modified: advisory.modified,
          component_key: row.key, name: row.name, version, purl: row.purl, ecosystem: pkg.ecosystem, package: pkg.name, explanation,
        } as unknown as JsonObject,
      });
    }
  }
  return findings;
}

// Findings of both axes from what an analysis stored (plain functions; src/queues/findings.ts feeds
// them). `pqc`: every crypto asset and runtime observation classified (src/analysis/crypto).
// `vuln`: one finding per (component, advisory) from OSV records matched by package URL and version.
import type { JsonObject } from '../lib/json';
import type { AnalysisRow, FindingRow } from '../project/analysis-store';
import type { CryptoAsset, Observation } from './types';
import { classifyAsset, classifyObservation } from './crypto/classify';
import { packageOf } from './vulns/ecosystem';
import { matchPackage } from './vulns/match';
import { packageKey } from './vulns/osv';
import type { OsvRecord, PackageKey } from './vulns/osv-types';

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

/** Classifies a survey's crypto assets; certificates and keys look their algorithms up by bom-ref. */
export function cryptoFindings(assets: AnalysisRow[]): FindingRow[] {
  const byRef = new Map<string, CryptoAsset>();
  for (const row of assets) {
    const asset = row.data as unknown as CryptoAsset;
    if (asset.bomRef) byRef.set(asset.bomRef, asset);
  }
  return assets.map((row) => {
    const asset = row.data as unknown as CryptoAsset;
    const entry = classifyAsset(asset, { byRef });
    return {
      key: row.key, name: entry.name, purl: null, version: null,
      data: { ...entry, key: row.key, bom_ref: asset.bomRef ?? null, occurrences: asset.occurrences ?? null, locations: asset.locations ?? [], seen_in: row.data.source ?? null } as unknown as JsonObject,
    };
  });
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

/** One finding per advisory affecting a component, with the component's own fix version (above every matched range). */
export function vulnFindings(components: PackagedComponent[], records: Map<string, OsvRecord[]>): FindingRow[] {
  const findings: FindingRow[] = [];
  for (const { row, pkg } of components) {
    const version = pkg.version ?? row.version;
    if (!version) continue;
    const candidates = records.get(packageKey(pkg));
    if (!candidates?.length) continue;
    const { advisories, fix_version } = matchPackage(pkg, version, candidates);
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

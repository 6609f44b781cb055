// The reports of fixture bundles as the pipeline builds them, in-process and without storage: the
// project's bundle reader, its classification and vulnerability matching, the report builders'
// tallies, and the layout every renderer draws (reportModel). Used by the document tests; the
// pictures in docs/samples come from the same fixtures through the running service (npm run samples).
import { readBundle } from '../src/analysis/bundle';
import { AssetLinks, cryptoFindings, packagedComponents, vulnFindings, type PackagedComponent } from '../src/analysis/findings';
import type { Dependency } from '../src/analysis/types';
import { namesPackage, packageKey } from '../src/analysis/vulns/osv';
import type { OsvRecord } from '../src/analysis/vulns/osv-types';
import type { JsonObject } from '../src/lib/json';
import { stagedRow, type AnalysisRow, type ContentKind } from '../src/project/analysis-store';
import type { ReportType } from '../src/project/jobs';
import type { RenderModel } from '../src/render/model';
import { reportModel } from '../src/render/report-model';
import { REPORT_BUILDERS, sectionList } from '../src/reports/builders';

export interface FixtureReport {
  model: RenderModel;
  /** Every entry of each list section, as the report stores them. */
  entries: Map<string, JsonObject[]>;
  /** The headline figures as the summary holds them. */
  headline: JsonObject;
}

/** The rows an analysis stores of a bundle: components and crypto assets, each key once (the first wins), and the documents' dependency graph. */
async function analysisRows(bundle: string | Uint8Array): Promise<{ components: AnalysisRow[]; assets: AnalysisRow[]; dependencies: Dependency[] }> {
  const rows = { component: new Map<string, AnalysisRow>(), crypto_asset: new Map<string, AnalysisRow>() };
  const dependencies: Dependency[] = [];
  const keep = (row: ReturnType<typeof stagedRow>) => {
    const held = rows[row.kind as 'component' | 'crypto_asset'];
    if (!held.has(row.key)) held.set(row.key, { key: row.key, name: row.name, purl: row.purl, version: row.version, data: row.data });
  };
  await readBundle(new Blob([bundle]).stream(), {
    fileName: 'bundle.json',
    onComponent: (component, source) => keep(stagedRow({ kind: 'component', source: source.path, component })),
    onCryptoAsset: (asset, source) => keep(stagedRow({ kind: 'crypto_asset', source: source.path, asset })),
    onDependency: (dependency) => void dependencies.push(dependency),
  });
  return { components: [...rows.component.values()], assets: [...rows.crypto_asset.values()], dependencies };
}

/** The records (not withdrawn) naming each component's package, by package key, as the vulnerability database answers them. */
function recordIndex(records: OsvRecord[], components: PackagedComponent[]): Map<string, OsvRecord[]> {
  const index = new Map<string, OsvRecord[]>();
  for (const { pkg } of components) {
    const key = packageKey(pkg);
    if (!index.has(key)) index.set(key, records.filter((record) => !record.withdrawn && (record.affected ?? []).some((affected) => namesPackage(affected, pkg))));
  }
  return index;
}

/**
 * A fixture bundle's report of `type` laid out for the renderers. `records` (OSV) are matched for the
 * composition report; `survey` stands for the survey the report came from.
 */
export async function fixtureReport(
  type: ReportType,
  bundle: string | Uint8Array,
  options: { subject: string; records?: OsvRecord[]; survey?: RenderModel['survey']; producedAt?: string; reportId?: string },
): Promise<FixtureReport> {
  const { components, assets, dependencies } = await analysisRows(bundle);
  const builder = REPORT_BUILDERS[type];
  const tally = builder.tally();
  const rows: [AnalysisRow, ContentKind][] = [];
  if (type === 'pqc-inventory') {
    // As the analysis reads them: stored rows in key order, keys classified through the links the documents' dependencies draw.
    const stored = [...assets].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const graph = new AssetLinks(stored);
    for (const dependency of dependencies) graph.addDependency(dependency);
    for (const finding of cryptoFindings(stored, new Map(), graph.links())) rows.push([finding, 'crypto_finding']);
  }
  else if (type === 'cbom') for (const asset of assets) rows.push([asset, 'crypto_asset']);
  else {
    const packaged = packagedComponents(components);
    for (const finding of vulnFindings(packaged, recordIndex(options.records ?? [], packaged))) rows.push([finding, 'vuln_finding']);
  }
  const entries = new Map<string, JsonObject[]>(builder.listSections.map((name) => [name, []]));
  const totals: Record<string, number> = {};
  for (const [row, kind] of rows) {
    const entry = tally.add(row, kind);
    if (!entry) continue;
    entries.get(entry.section)!.push(entry.data);
    totals[entry.section] = (totals[entry.section] ?? 0) + 1;
  }
  const headline: JsonObject = type === 'composition' ? { ...tally.figures(), components: components.length } : tally.figures();
  const reportId = options.reportId ?? '0195f0c0-0000-7000-8000-00000000f1c5';
  const model = reportModel({
    report: { id: reportId, type, subject: options.subject, producedAt: options.producedAt ?? '2026-11-24T10:15:00.000Z', summary: { headline, sections: sectionList(builder, totals) } },
    project: { id: '0195f0c0-0000-7000-8000-0000000000aa', name: 'Fixture project' },
    survey: options.survey ?? { id: '0195f0c0-0000-7000-8000-0000000000bb', type: 'INVENTORY_SURVEY', tag: null, target: options.subject },
    entries,
  });
  return { model, entries, headline };
}

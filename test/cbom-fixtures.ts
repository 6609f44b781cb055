// The fixture CBOMs (test/fixtures/cbom) read by the project's own bundle reader and classified as the
// analysis does: rows keyed as stored (stagedRow; the same key twice is one row), in key order, the
// documents' dependency graph through AssetLinks, then cryptoFindings.
import { readBundle } from '../src/analysis/bundle';
import { AssetLinks, cryptoFindings } from '../src/analysis/findings';
import type { CryptoAsset, Dependency } from '../src/analysis/types';
import { stagedRow, type AnalysisRow } from '../src/project/analysis-store';

export const cboms = import.meta.glob('./fixtures/cbom/*.json', { query: '?raw', import: 'default', eager: true }) as Record<string, string>;

/** The fixture's text by file name. */
export const cbom = (file: string): string => cboms[`./fixtures/cbom/${file}`]!;

export async function readCbom(file: string, text = cbom(file)) {
  const assets: CryptoAsset[] = [];
  const dependencies: Dependency[] = [];
  await readBundle(new Blob([text]).stream(), { fileName: file, onCryptoAsset: (a) => void assets.push(a), onDependency: (d) => void dependencies.push(d) });
  const rows = new Map<string, AnalysisRow>();
  for (const asset of assets) {
    const row = stagedRow({ kind: 'crypto_asset', source: file, asset });
    if (!rows.has(row.key)) rows.set(row.key, row);
  }
  const sorted = [...rows.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const graph = new AssetLinks(sorted);
  for (const dependency of dependencies) graph.addDependency(dependency);
  const links = graph.links();
  const byRef = new Map(assets.filter((a) => a.bomRef).map((a) => [a.bomRef!, a]));
  return { assets, dependencies, links, byRef, findings: cryptoFindings(sorted, new Map(), links).map((f) => f.data as any) };
}

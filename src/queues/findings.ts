// Deriving a survey's findings inside the analysis attempt, staged under it so they are flipped in
// with the contents. Components are matched against the vulnerability database in D1 batch by batch as
// they are staged (one lookup per batch); crypto assets and runtime observations are classified once
// the whole bundle is read (certificates refer to algorithms anywhere in it, and an observation's
// count adds up over every line), paged back from the project object. Which library provides each
// crypto asset comes from the dependency rows (paged, only entries touching an asset kept) and the
// components they name (looked up by bom-ref).
import { BundleError } from '../analysis/bundle';
import { AssetLinks, cryptoFindings, packagedComponents, ProviderGraph, runtimeFinding, vulnFindings, type MatchMemo, type ProvidedBy } from '../analysis/findings';
import type { Dependency } from '../analysis/types';
import type { Env } from '../env';
import type { AnalysisRow, ContentKind, FoundItem, SerializedRow, TextRow } from '../project/analysis-store';
import type { JsonObject } from '../lib/json';
import { withProjectWork } from '../project/client';
import type { AnalysisMessage } from '../project/surveys';
import { lookupRecords, type RecordCache } from '../vulndb/lookup';
import { yieldNow } from '../lib/yielding';

/** Rows per page read back from the project object (and packages per vulnerability lookup). */
export const FINDINGS_PAGE = 500;
/** Certificates and keys refer to algorithms anywhere in the survey, so its crypto assets are held at once: up to this many. */
export const MAX_CRYPTO_ASSETS = 100_000;

/** Every page of one kind of the attempt's rows, in key order. */
export async function* analysisPages(env: Env, message: AnalysisMessage, source: { surveyId: string; attempt: number }, kind: ContentKind): AsyncGenerator<AnalysisRow[]> {
  let after: string | undefined;
  for (;;) {
    const page = await withProjectWork<{ rows: TextRow[]; next: string | null }>(env, message.projectId, (stub) =>
      stub.analysisRows({ ...source, kind, after, limit: FINDINGS_PAGE, asText: true }));
    if (page.rows.length) yield page.rows.map((row) => ({ ...row, data: JSON.parse(row.data) as JsonObject }));
    if (!page.next) return;
    after = page.next;
    // Let requests waiting for this thread in (a report of a million components is thousands of pages).
    await yieldNow();
  }
}

/** Where derived findings go: the analysis's Stager (queues/analysis.ts), batched to the project object. */
export interface FindingSink {
  add(item: FoundItem): Promise<void>;
  flush(): Promise<void>;
}

export async function deriveFindings(env: Env, message: AnalysisMessage, attempt: number, stager: FindingSink): Promise<void> {
  const source = { surveyId: message.surveyId, attempt };
  const assets: AnalysisRow[] = [];
  for await (const page of analysisPages(env, message, source, 'crypto_asset')) {
    for (const row of page) assets.push(lean(row));
    if (assets.length > MAX_CRYPTO_ASSETS) throw new BundleError('archive_limits', `The bundle holds more than ${MAX_CRYPTO_ASSETS} cryptographic assets; split it into several surveys.`);
  }
  const { providers, links } = await graphOf(env, message, source, assets);
  for (const finding of cryptoFindings(assets, providers, links)) await stager.add({ kind: 'crypto_finding', source: String(finding.data.seen_in ?? ''), finding });
  for await (const page of analysisPages(env, message, source, 'observation')) {
    for (const row of page) await stager.add({ kind: 'runtime_finding', source: String(row.data.source ?? ''), finding: runtimeFinding(row) });
  }
  await stager.flush();
}

/** Bom-refs per component lookup (the `analysisRows` RPC with `bomRefs`). */
export const REFS_PER_LOOKUP = 500;

/** What classification does not read of an asset (the cbom report does): held for every asset at once, it would only take memory. */
function lean(row: AnalysisRow): AnalysisRow {
  const { evidence: _evidence, properties: _properties, description: _description, ...data } = row.data;
  return { ...row, data };
}

/**
 * What the documents' graph says about the attempt's crypto assets: which library provides each (by
 * row key) and which assets each is tied to (by bom-ref). Nothing is read without assets.
 */
export async function graphOf(env: Env, message: AnalysisMessage, source: { surveyId: string; attempt: number }, assets: AnalysisRow[]) {
  const graph = new ProviderGraph(assets);
  const links = new AssetLinks(assets);
  if (graph.empty) return { providers: new Map<string, ProvidedBy | null>(), links: links.links() };
  for await (const page of analysisPages(env, message, source, 'dependency')) {
    for (const row of page) {
      graph.addDependency(row.data as unknown as Dependency);
      links.addDependency(row.data as unknown as Dependency);
    }
  }
  const refs = graph.wantedRefs();
  for (let i = 0; i < refs.length; i += REFS_PER_LOOKUP) {
    const bomRefs = refs.slice(i, i + REFS_PER_LOOKUP);
    const page = await withProjectWork<{ rows: AnalysisRow[] }>(env, message.projectId, (stub) =>
      stub.analysisRows({ ...source, kind: 'component', limit: bomRefs.length, bomRefs }));
    for (const row of page.rows) graph.addComponent(row);
    await yieldNow();
  }
  return { providers: graph.providers(), links: links.links() };
}

/** The advisories of the components among a batch of found items, as finding items to stage with them. */
export async function componentFindings(env: Env, rows: SerializedRow[], known: RecordCache, matches?: MatchMemo): Promise<FoundItem[]> {
  const components = packagedComponents(rows.filter((row) => row.kind === 'component'));
  if (!components.length) return [];
  // Not deduplicated first (packagesOf): lookupRecords asks each package once, and a map of the
  // batch's packages was garbage for every batch.
  const records = await lookupRecords(env.DB, components.map((c) => c.pkg), known);
  if (!records.size) return [];
  return vulnFindings(components, records, matches).map((finding) => ({ kind: 'vuln_finding', source: String(finding.data.purl ?? ''), finding }));
}

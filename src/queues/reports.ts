// The report phase of a survey (a message on the analysis queue with `phase: "report"`): for each
// REPORT step in turn, the analysis rows become entries (staged in the project object, indexed for
// sections, search and compare), the full document is written to R2 as it is produced, and the
// report is finished with its summary, figures and provenance.
import { ANALYSIS_VERSION, CLASSIFICATION_VERSION } from '../analysis/versions';
import type { Env } from '../env';
import type { JsonObject } from '../lib/json';
import { withProjectWork } from '../project/client';
import type { AnalysisRow, LibraryRow } from '../project/analysis-store';
import type { EntryRow, ReportStart } from '../project/report-build';
import type { EntryCursor, ReportCopy } from '../project/report-reuse';
import type { ReportType } from '../reports/report-types';
import type { AnalysisMessage } from '../project/surveys';
import { BlobWriter } from '../reports/blob-writer';
import { concatBytes } from '../lib/bytes';
import { REPORT_BUILDERS, sectionList, type ReportBuilder, type ReportTally } from '../reports/builders';
import { cycloneDxDependencyOf, cycloneDxLibraryJson, cycloneDxVulnerabilityOf, documentHead } from '../reports/cyclonedx';
import { vulnDataSnapshot } from '../vulndb/lookup';
import { searchTerms } from '../reports/search-terms';
import { AnalysisAbandoned, yieldNow, yieldToEventLoop } from '../lib/yielding';
import { analysisPages, REFS_PER_LOOKUP } from './findings';
import { entryDecision, hasDecisions, indexDecisions, type DecisionIndex, type ScopedDecision } from '../triage/match';

const ENTRY_BATCH = 500;

type Work = Extract<ReportStart, { run: true }>;
type Report = Work['reports'][number];

export const reportBlobKey = (projectId: string, reportId: string) => `projects/${projectId}/reports/${reportId}/report.json`;

/** Stages a report's entries, positions counted per section; answers the totals per section. */
async function stageEntries(env: Env, message: AnalysisMessage, work: Work, report: Report, builder: ReportBuilder, tally: ReportTally): Promise<Record<string, number>> {
  const totals: Record<string, number> = {};
  let batch: EntryRow[] = [];
  const send = async () => {
    if (!batch.length) return;
    const entries = batch;
    batch = [];
    const active = await withProjectWork<boolean>(env, message.projectId, (stub) => stub.stageReportEntries({ surveyId: message.surveyId, attempt: work.attempt, reportId: report.id, entries }));
    if (!active) throw new AnalysisAbandoned();
    await yieldToEventLoop();
  };
  const source = { surveyId: work.source.survey_id, attempt: work.source.attempt };
  for (const kind of builder.kinds) {
    for await (const page of analysisPages(env, message, source, kind)) {
      for (const row of page) {
        const entry = tally.add(row, kind);
        if (!entry) continue;
        totals[entry.section] = (totals[entry.section] ?? 0) + 1;
        batch.push({ ...entry, position: totals[entry.section]!, data: JSON.stringify(entry.data), terms: searchTerms(entry) });
        if (batch.length >= ENTRY_BATCH) await send();
      }
    }
  }
  await send();
  return totals;
}

/** Every entry of one section of a stored (or staged) report, in order, a page at a time from the project object. */
export async function* sectionEntries(env: Env, projectId: string, reportId: string, section: string): AsyncGenerator<JsonObject> {
  for await (const text of sectionEntryTexts(env, projectId, reportId, section)) yield JSON.parse(text) as JsonObject;
}

/** `sectionEntries` as their stored JSON text (what the full document holds of most entries, as it is). */
async function* sectionEntryTexts(env: Env, projectId: string, reportId: string, section: string): AsyncGenerator<string> {
  for (let after = 0; ;) {
    const page = await withProjectWork<{ entries: string[]; last: number | null }>(env, projectId, (stub) =>
      stub.reportEntryPage({ reportId, section, after, limit: ENTRY_BATCH }));
    yield* page.entries;
    if (page.last === null) return;
    after = page.last;
    await yieldNow();
  }
}

/**
 * Components per page of the composition document: each is a few short columns (`libraryRows`), so
 * a page of this many is a few milliseconds of work on either side, in a quarter of the calls.
 */
const LIBRARY_PAGE = 2_000;

/** Every component of the analysis as the composition document lists it, a page at a time. */
async function* libraryPages(env: Env, message: AnalysisMessage, source: { surveyId: string; attempt: number }): AsyncGenerator<AnalysisRow[]> {
  let after: string | undefined;
  for (;;) {
    const page = await withProjectWork<{ rows: LibraryRow[]; next: string | null }>(env, message.projectId, (stub) =>
      stub.libraryRows({ ...source, after, limit: LIBRARY_PAGE }));
    yield page.rows.map(({ type, group, ...row }) => ({ ...row, data: { type, group } }));
    if (!page.next) return;
    after = page.next;
    await yieldNow();
  }
}

/**
 * The start of a report's document: what differs between two documents of the same rows (their
 * survey, serial number and time). Everything after it is a function of the rows (a copy keeps it).
 */
function documentStart(type: ReportType, subject: string, surveyId: string, producedAt: string, serial: string = crypto.randomUUID()): string {
  if (type === 'pqc-inventory') return `{"type":"pqc-inventory","subject":${JSON.stringify(subject)},"survey_id":"${surveyId}","produced_at":"${producedAt}",`;
  return documentHead({ serial, subject, producedAt, version: ANALYSIS_VERSION });
}

/** Writes the full document of a report to R2; answers the components written (composition). */
async function writeDocument(env: Env, message: AnalysisMessage, work: Work, report: Report, builder: ReportBuilder, tally: ReportTally, writer: BlobWriter, producedAt: string): Promise<number> {
  let components = 0;
  if (builder.type === 'pqc-inventory') {
    await writer.write(`${documentStart(builder.type, work.subject, message.surveyId, producedAt)}"overview":${JSON.stringify(tally.objects().overview)},"sections":{`);
    for (const [i, section] of builder.listSections.entries()) {
      await writer.write(`${i ? ',' : ''}${JSON.stringify(section)}:[`);
      let first = true;
      // Each entry's data holds its section (the tally put it there): the stored text is the entry as written.
      for await (const text of sectionEntryTexts(env, message.projectId, report.id, section)) {
        await writer.write(first ? text : `,${text}`);
        first = false;
      }
      await writer.write(']');
    }
    await writer.write('}}');
    return 0;
  }
  await writer.write(documentStart(builder.type, work.subject, message.surveyId, producedAt));
  let first = true;
  if (builder.type === 'cbom') {
    const inDocument = new Set<string>();
    for (const section of builder.listSections) {
      for await (const text of sectionEntryTexts(env, message.projectId, report.id, section)) {
        await writer.write(first ? text : `,${text}`);
        first = false;
        inDocument.add(String((JSON.parse(text) as JsonObject)['bom-ref']));
      }
    }
    await writeCbomGraph(env, message, work, writer, inDocument, first);
    return 0;
  }
  // composition: every component, then one vulnerability per advisory (its entries are consecutive: keys start with the advisory id).
  for await (const page of libraryPages(env, message, { surveyId: work.source.survey_id, attempt: work.source.attempt })) {
    for (const row of page) {
      await writer.write(`${first ? '' : ','}${cycloneDxLibraryJson(row, `component:${row.key}`)}`);
      first = false;
      components += 1;
    }
  }
  await writer.write('],"vulnerabilities":[');
  first = true;
  for (const section of builder.listSections) {
    let group: JsonObject[] = [];
    const flush = async () => {
      if (!group.length) return;
      await writer.write(`${first ? '' : ','}${JSON.stringify(cycloneDxVulnerabilityOf(group))}`);
      first = false;
      group = [];
    };
    for await (const entry of sectionEntries(env, message.projectId, report.id, section)) {
      if (group.length && group[0]!.advisory_id !== entry.advisory_id) await flush();
      group.push(entry);
    }
    await flush();
  }
  await writer.write(']}');
  return components;
}

/**
 * The end of the cbom report: the components the documents' dependency graph ties to its assets (a
 * library that provides an algorithm, an application that uses a protocol), then that graph, each
 * entry cut to the refs the document holds. Two passes over the dependency rows, a page at a time.
 */
async function writeCbomGraph(env: Env, message: AnalysisMessage, work: Work, writer: BlobWriter, inDocument: Set<string>, empty: boolean): Promise<void> {
  const source = { surveyId: work.source.survey_id, attempt: work.source.attempt };
  const wanted = new Set<string>();
  for await (const page of analysisPages(env, message, source, 'dependency')) {
    for (const row of page) {
      const refs: string[] = [row.data.ref, ...(row.data.dependsOn ?? []), ...(row.data.provides ?? [])];
      if (refs.some((ref) => inDocument.has(ref))) for (const ref of refs) if (!inDocument.has(ref)) wanted.add(ref);
    }
  }
  let first = empty;
  const refs = [...wanted];
  for (let i = 0; i < refs.length; i += REFS_PER_LOOKUP) {
    const bomRefs = refs.slice(i, i + REFS_PER_LOOKUP);
    const page = await withProjectWork<{ rows: AnalysisRow[] }>(env, message.projectId, (stub) => stub.analysisRows({ ...source, kind: 'component', limit: bomRefs.length, bomRefs }));
    for (const row of page.rows) {
      const ref = String(row.data.bomRef);
      if (inDocument.has(ref)) continue;
      inDocument.add(ref);
      await writer.write(`${first ? '' : ','}${cycloneDxLibraryJson(row, ref)}`);
      first = false;
    }
  }
  await writer.write('],"dependencies":[');
  first = true;
  const has = (ref: string) => inDocument.has(ref);
  for await (const page of analysisPages(env, message, source, 'dependency')) {
    for (const row of page) {
      if (!inDocument.has(row.data.ref)) continue;
      await writer.write(`${first ? '' : ','}${JSON.stringify(cycloneDxDependencyOf(row.data, has))}`);
      first = false;
    }
  }
  await writer.write(']}');
}

/**
 * Copies the report `report.copyFrom` (src/project/report-reuse.ts): its entries, a page at a time in
 * the project object, and its document with a start of this survey's; the summary and figures are
 * its own, the changes counted again on finishing. Answers false, having written nothing, when its
 * document is gone or does not start as expected (the report is then built).
 */
async function copyReport(env: Env, message: AnalysisMessage, work: Work, report: Report, copy: ReportCopy, vulnData: JsonObject): Promise<boolean> {
  const object = await env.BUNDLES.get(copy.blobKey);
  if (!object) return false;
  const reader = object.body.getReader();
  // The old start has the length of a new one: same subject, a survey id, a UUID and an ISO time each of fixed length.
  const producedAt = new Date().toISOString();
  const start = documentStart(report.type, work.subject, message.surveyId, producedAt);
  const startBytes = new TextEncoder().encode(start).length;
  const chunks: Uint8Array[] = [];
  let held = 0;
  while (held < startBytes) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    held += value.length;
  }
  const opening = concatBytes(chunks);
  const oldStart = new TextDecoder().decode(opening.subarray(0, startBytes));
  const ending = report.type === 'pqc-inventory' ? '",' : '"components":[';
  if (held < startBytes || !oldStart.startsWith(start.slice(0, 24)) || !oldStart.endsWith(ending)) {
    await reader.cancel();
    return false;
  }
  for (let after: EntryCursor | null = null; ;) {
    const copied: { active: boolean; last: EntryCursor | null } = await withProjectWork(env, message.projectId, (stub) =>
      stub.copyReportEntries({ surveyId: message.surveyId, attempt: work.attempt, reportId: report.id, fromReportId: copy.id, after }));
    if (!copied.active) {
      await reader.cancel();
      throw new AnalysisAbandoned();
    }
    if (!copied.last) break;
    after = copied.last;
    await yieldToEventLoop();
  }
  const writer = new BlobWriter(env.BUNDLES, reportBlobKey(message.projectId, report.id));
  try {
    await writer.write(start);
    await writer.write(opening.subarray(startBytes));
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      await writer.write(value);
    }
    await writer.close();
  } catch (error) {
    await writer.abort();
    throw error;
  }
  const { headline, ...summary } = copy.summary as JsonObject & { headline?: JsonObject };
  const { changes: _changes, ...figures } = headline ?? {};
  const provenance = { ...copy.provenance, vulnerability_data: vulnData, bundle: work.bundle, source: work.source, document_bytes: writer.size };
  const finished = await withProjectWork<boolean>(env, message.projectId, (stub) => stub.finishReport({
    surveyId: message.surveyId, attempt: work.attempt, reportId: report.id, type: report.type, subject: work.subject, source: work.source,
    previousId: report.previousId, blobKey: writer.key, summary, figures, changeSections: REPORT_BUILDERS[report.type].changeSections, provenance,
    findingsDigest: work.findingsDigest, copiedFrom: copy.id,
  }));
  if (!finished) throw new AnalysisAbandoned();
  return true;
}

async function buildReport(env: Env, message: AnalysisMessage, work: Work, report: Report, vulnData: JsonObject, decisions: DecisionIndex): Promise<void> {
  if (report.copyFrom && await copyReport(env, message, work, report, report.copyFrom, vulnData)) return;
  const builder = REPORT_BUILDERS[report.type];
  const now = new Date();
  const tally = builder.tally(hasDecisions(decisions) ? (row, kind) => entryDecision(decisions, work.subject, kind, row.data, now) : undefined);
  const totals = await stageEntries(env, message, work, report, builder, tally);
  const producedAt = new Date().toISOString();
  const writer = new BlobWriter(env.BUNDLES, reportBlobKey(message.projectId, report.id));
  let components = 0;
  try {
    components = await writeDocument(env, message, work, report, builder, tally, writer, producedAt);
    await writer.close();
  } catch (error) {
    await writer.abort();
    throw error;
  }
  const figures = builder.type === 'composition' ? { ...tally.figures(), components } : tally.figures();
  const objects = builder.type === 'composition' ? { overview: { ...tally.objects().overview, components } } : tally.objects();
  const provenance = {
    analysis: ANALYSIS_VERSION, classification: CLASSIFICATION_VERSION, vulnerability_data: vulnData,
    bundle: work.bundle, source: work.source, document_bytes: writer.size,
  };
  const finished = await withProjectWork<boolean>(env, message.projectId, (stub) => stub.finishReport({
    surveyId: message.surveyId, attempt: work.attempt, reportId: report.id, type: report.type, subject: work.subject, source: work.source,
    previousId: report.previousId, blobKey: writer.key, summary: { sections: sectionList(builder, totals), objects }, figures,
    changeSections: builder.changeSections, provenance, findingsDigest: work.findingsDigest,
  }));
  if (!finished) throw new AnalysisAbandoned();
}

/** Builds the survey's reports; returns when done with (ack), throws when the message should be retried. */
export async function buildReports(env: Env, message: AnalysisMessage): Promise<void> {
  const work = await withProjectWork<ReportStart>(env, message.projectId, (stub) => stub.beginReports({ surveyId: message.surveyId, message }));
  if (!work.run) return;
  const vulnData = await vulnDataSnapshot(env.DB) as unknown as JsonObject;
  // The decisions in place when the survey finished: its entries carry them, its figures count what they suppress apart.
  const decisions = indexDecisions(await withProjectWork<ScopedDecision[]>(env, message.projectId, (stub) => stub.scopedDecisions()));
  try {
    for (const report of work.reports) await buildReport(env, message, work, report, vulnData, decisions);
  } catch (error) {
    if (error instanceof AnalysisAbandoned) return;
    throw error;
  }
}

// Rendered report documents (issue 9; spec 4.9 rule 4, 4.10 export, provenance, stale projections):
// the render jobs a finished report starts, the five documents read back with real parsers, render
// again, and stale projections — through the API, the real render queue and R2.
import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { parse as parseCsv } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { strFromU8, unzipSync } from 'fflate';
import { parse as parseHtml } from 'parse5';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { projectStub } from '../../src/project/client';
import { PDF_TEMPLATE } from '../../src/render/templates';
import { api, expectError, json } from '../helpers';
import { addPerson } from '../people';
import { dataTenant, readEvents } from '../data-plane';
import { analysed, buildReports, deliver, getJob, letRendersFinish, liveRenders, P } from '../pipeline';
import temurin from '../fixtures/cbom/ibm-cbomkit-theia__temurin-jdk-image.cbom.json?raw';

type T = Awaited<ReturnType<typeof dataTenant>>;
const FORMATS = ['pdf', 'xlsx', 'pptx', 'html', 'csv'];

/** A CBOM whose asset names are hostile or non-Latin: they land in `unclassified` with what was seen. */
function hostileCbom(subject: string): string {
  const names = ['RSA-2048', 'AES-256-GCM', '<script>alert(1)</script>', '=HYPERLINK("http://evil.example","x")', '暗号アルゴリズム', 'Шифр-Кузнечик', 'ML-KEM-768'];
  return JSON.stringify({
    bomFormat: 'CycloneDX', specVersion: '1.6', version: 1, metadata: { component: { type: 'application', name: subject } },
    components: names.map((name, i) => ({
      type: 'cryptographic-asset', 'bom-ref': `asset-${i}`, name,
      cryptoProperties: { assetType: 'algorithm', algorithmProperties: { primitive: 'other' } },
    })),
  });
}

const reportOf = (survey: any, label: string) => survey.steps.find((s: any) => s.step_label === label);

/** The render jobs under a report's job, from the job list. */
async function renderJobs(t: T, reportId: string): Promise<any[]> {
  const res = await api(`${P(t.projectId)}/v1/job?jobType=REPORT&limit=10000`, { token: t.token });
  expect(res.status).toBe(200);
  return (await json(res)).jobs.filter((j: any) => j.parent_id === reportId);
}

/** Waits until the report's latest render jobs (one per format) have all completed; answers them by format. */
async function rendered(t: T, reportId: string, after = ''): Promise<Record<string, any>> {
  let latest: Record<string, any> = {};
  await vi.waitFor(async () => {
    const jobs = (await renderJobs(t, reportId)).filter((j) => j.id > after);
    latest = Object.fromEntries(jobs.map((j) => [j.metadata.format, j]));
    expect(Object.keys(latest).sort()).toEqual([...FORMATS].sort());
    expect(Object.values(latest).map((j) => j.status)).toEqual(FORMATS.map(() => 'COMPLETED'));
  }, { timeout: 30_000, interval: 100 });
  return latest;
}

const exportOf = (t: T, reportId: string, format: string) => api(`${P(t.projectId)}/v1/report/${reportId}/export/${format}`, { token: t.token });

let t: T;
let survey: any;
let pqc: string;

// The render jobs still running (the temurin survey's three reports) finish before the file's environment goes.
afterAll(() => letRendersFinish([t]));

beforeAll(async () => {
  t = await dataTenant('documents');
  // These tests are the render queue's own: it renders this project's documents as in production.
  await liveRenders(t);
  const s = await analysed(t, hostileCbom('vault <svc>'));
  survey = await getJob(t, s.surveyId);
  pqc = reportOf(survey, 'pqc-inventory').id;
  await rendered(t, pqc);
}, 60_000);

describe('render jobs (spec 4.9 rule 4)', () => {
  it('each finished report is rendered once in five formats, as REPORT steps labelled render:<format> under its REPORT step', async () => {
    for (const label of ['pqc-inventory', 'cbom', 'composition']) {
      const report = reportOf(survey, label);
      const jobs = Object.values(await rendered(t, report.id));
      expect(jobs.map((j) => j.step_label).sort()).toEqual(FORMATS.map((f) => `render:${f}`).sort());
      for (const job of jobs) {
        expect(job).toMatchObject({ type: 'REPORT', step_type: 'REPORT', parent_id: report.id, status: 'COMPLETED', progress: 100 });
        expect(job.metadata).toMatchObject({ report_id: report.id, report_type: label, bytes: expect.any(Number), duration_ms: expect.any(Number) });
      }
      // Exactly one automatic rendering per report.
      expect((await renderJobs(t, report.id)).length).toBe(5);
    }
    // The survey's own steps stay its upload, analysis and three reports.
    const again = await getJob(t, survey.id);
    expect(again.status).toBe('COMPLETED');
    expect(again.steps.map((s: any) => s.step_label)).toEqual(['upload', 'analyze', 'pqc-inventory', 'cbom', 'composition']);
    const top = await json(await api(`${P(t.projectId)}/v1/job?topLevel=true`, { token: t.token }));
    expect(top.jobs.some((j: any) => j.step_label?.startsWith('render:'))).toBe(false);
  });

  it('render again: 202 renderSubJobIds, new documents replace the old ones (and their stored files)', async () => {
    const before = await runInDurableObject(projectStub(env, t.projectId), (_i, state) =>
      state.storage.sql.exec<{ format: string; blob_key: string; job_id: string }>('SELECT format, blob_key, job_id FROM report_documents WHERE report_id = ?', pqc).toArray());
    expect(before.length).toBe(5);
    const res = await api(`${P(t.projectId)}/v1/report/${pqc}/render`, { token: t.token, method: 'POST' });
    expect(res.status).toBe(202);
    const { renderSubJobIds } = await json(res);
    expect(Object.keys(renderSubJobIds).sort()).toEqual([...FORMATS].sort());
    const jobs = await rendered(t, pqc, before.map((b) => b.job_id).sort().at(-1));
    for (const format of FORMATS) expect(jobs[format].id).toBe(renderSubJobIds[format]);
    const provenance = await json(await api(`${P(t.projectId)}/v1/report/${pqc}/export/pdf/provenance`, { token: t.token }));
    expect(provenance.render_job_id).toBe(renderSubJobIds.pdf);
    for (const old of before) expect(await env.BUNDLES.head(old.blob_key)).toBeNull();
    // No new report version: the same report, the same entries.
    expect((await getJob(t, survey.id)).steps.filter((s: any) => s.step_type === 'REPORT').map((s: any) => s.id)).toContain(pqc);
  });

  it('404 for an unknown job, 409 for a job that is not a completed report, 400 for a bad id, 403 without project:edit', async () => {
    const render = (id: string, token = t.token) => api(`${P(t.projectId)}/v1/report/${id}/render`, { token, method: 'POST' });
    await expectError(await render(crypto.randomUUID()), 404, 'not_found');
    await expectError(await render(survey.id), 409, 'conflict');
    await expectError(await render(survey.steps.find((s: any) => s.step_type === 'ANALYZE').id), 409, 'conflict');
    const aRenderJob = (await renderJobs(t, pqc))[0];
    await expectError(await render(aRenderJob.id), 409, 'conflict');
    await expectError(await render('not-a-uuid'), 400, 'invalid_parameter');
    const viewer = await addPerson(t, 'Viewer');
    await expectError(await render(pqc, viewer.token), 403, 'permission_denied');
  });
});

/**
 * A render job whose queue message never arrived (lost with a restart): the rows the project object
 * writes before sending, and no message. `attempts` starts the job as if that many deliveries began.
 */
async function lostRender(reportId: string, format: string, attempts = 0): Promise<string> {
  const jobId = crypto.randomUUID();
  await runInDurableObject(projectStub(env, t.projectId), (_i, state) => {
    const now = new Date().toISOString();
    state.storage.sql.exec(
      `INSERT INTO jobs (id, type, status, progress, message, created_at, metadata, parent_id, step_type, step_label, seq, updated_at)
       VALUES (?, 'REPORT', 'PENDING', 0, NULL, ?, ?, ?, 'REPORT', ?, 1, ?)`,
      jobId, now, JSON.stringify({ report_id: reportId, report_type: 'pqc-inventory', format }), reportId, `render:${format}`, now);
    state.storage.sql.exec('INSERT INTO render_work (job_id, report_id, format, attempts, expires_at) VALUES (?, ?, ?, ?, ?)', jobId, reportId, format, attempts, 0);
  });
  return jobId;
}

describe('render jobs survive faults', () => {
  it('render jobs appear on the job stream', async () => {
    const res = await api(`${P(t.projectId)}/v1/job/stream`, { token: t.token, headers: { accept: 'text/event-stream' } });
    const reading = readEvents(res, (e) => e.updates.some((u) => u.step_label === 'render:csv' && u.status === 'COMPLETED'), 20_000);
    expect((await api(`${P(t.projectId)}/v1/report/${pqc}/render`, { token: t.token, method: 'POST' })).status).toBe(202);
    const events = await reading;
    const csv = events.updates.filter((u) => u.step_label === 'render:csv');
    expect(csv.map((u) => u.status)).toEqual(expect.arrayContaining(['PENDING', 'RUNNING', 'COMPLETED']));
    expect(csv[0]).toMatchObject({ type: 'REPORT', step_type: 'REPORT', parent_id: pqc });
  });

  it('a render whose message was lost is sent again by the alarm and completes', async () => {
    const jobId = await lostRender(pqc, 'html');
    await runDurableObjectAlarm(projectStub(env, t.projectId));
    await vi.waitFor(async () => expect((await getJob(t, jobId)).status).toBe('COMPLETED'), { timeout: 20_000, interval: 100 });
    const provenance = await json(await api(`${P(t.projectId)}/v1/report/${pqc}/export/html/provenance`, { token: t.token }));
    expect(provenance.render_job_id).toBe(jobId);
  });

  it('a render started too often fails as interrupted; the dead-letter queue fails one that ran out of retries', async () => {
    const tired = await lostRender(pqc, 'csv', 4);
    const delivered = await deliver({ projectId: t.projectId, reportId: pqc, jobId: tired, format: 'csv' }, { queue: 'posture-render' });
    expect(delivered.result.explicitAcks).toEqual([delivered.id]);
    expect(await getJob(t, tired)).toMatchObject({ status: 'FAILED', failure_class: 'interrupted' });

    const dead = await lostRender(pqc, 'pdf');
    const dlq = await deliver({ projectId: t.projectId, reportId: pqc, jobId: dead, format: 'pdf' }, { queue: 'posture-render-dlq' });
    expect(dlq.result.explicitAcks).toEqual([dlq.id]);
    expect(await getJob(t, dead)).toMatchObject({ status: 'FAILED', failure_class: 'internal' });
    // Failed renders leave the documents already held in place.
    expect((await exportOf(t, pqc, 'pdf')).status).toBe(200);
  });
});

describe('exports and provenance (spec 4.10 rules 3-5)', () => {
  it('the export list holds json and every rendered format', async () => {
    const res = await api(`${P(t.projectId)}/v1/report/${pqc}/export`, { token: t.token });
    expect(await json(res)).toEqual({ formats: ['json', 'pdf', 'xlsx', 'pptx', 'html', 'csv'] });
  });

  it('PDF: an attachment with its content type, a real PDF with the report\'s pages and a subset font', async () => {
    const res = await exportOf(t, pqc, 'pdf');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="report.pdf"');
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect(new TextDecoder().decode(bytes.slice(0, 5))).toBe('%PDF-');
    const pdf = await PDFDocument.load(bytes);
    expect(pdf.getPageCount()).toBeGreaterThanOrEqual(2);
    expect(pdf.getTitle()).toContain('Post-quantum cryptography inventory');
  });

  it('XLSX: a summary sheet and one sheet per section; hostile names are text, never formulas; non-Latin names intact', async () => {
    const res = await exportOf(t, pqc, 'xlsx');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="report.xlsx"');
    const bytes = new Uint8Array(await res.arrayBuffer());
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(bytes.buffer as ArrayBuffer);
    const names = book.worksheets.map((w) => w.name);
    expect(names[0]).toBe('Summary');
    expect(names.length).toBe(6);
    const values: unknown[] = [];
    book.worksheets.slice(1).forEach((sheet) => sheet.eachRow((row) => row.eachCell((cell) => values.push(cell.value))));
    expect(values).toContain('=HYPERLINK("http://evil.example","x")');
    expect(values).toContain('<script>alert(1)</script>');
    expect(values).toContain('暗号アルゴリズム');
    const sheets = Object.entries(unzipSync(bytes)).filter(([name]) => name.startsWith('xl/worksheets/'));
    for (const [, xml] of sheets) expect(strFromU8(xml)).not.toContain('<f>');
  });

  it('CSV: one row per entry with its section; formulas neutralised', async () => {
    const res = await exportOf(t, pqc, 'csv');
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const rows: string[][] = parseCsv(await res.text(), { bom: true });
    expect(rows[0]![0]).toBe('section');
    const summary = await json(await api(`${P(t.projectId)}/v1/report/${pqc}/summary`, { token: t.token }));
    const total = summary.sections.filter((s: any) => s.kind === 'list').reduce((n: number, s: any) => n + s.total, 0);
    expect(rows.length - 1).toBe(total);
    const cells = rows.flat();
    expect(cells).toContain('\'=HYPERLINK("http://evil.example","x")');
    expect(cells).not.toContain('=HYPERLINK("http://evil.example","x")');
    expect(cells).toContain('暗号アルゴリズム');
  });

  it('HTML: self-contained, no script, every value escaped', async () => {
    const res = await exportOf(t, pqc, 'html');
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await res.text();
    const texts: string[] = [];
    const elements: string[] = [];
    const walk = (node: any) => {
      if (node.nodeName === '#text') texts.push(node.value);
      else if (node.tagName) elements.push(node.tagName);
      for (const child of node.childNodes ?? []) walk(child);
      if (node.content) walk(node.content);
    };
    walk(parseHtml(html));
    expect(elements).not.toContain('script');
    expect(texts.join('\n')).toContain('<script>alert(1)</script>');
    expect(texts.join('\n')).toContain('vault <svc>');
    expect(texts.join('\n')).toContain('Шифр-Кузнечик');
  });

  it('PPTX: a deck with a native chart of the sections', async () => {
    const res = await exportOf(t, pqc, 'pptx');
    const files = unzipSync(new Uint8Array(await res.arrayBuffer()));
    const slides = Object.keys(files).filter((f) => /^ppt\/slides\/slide\d+\.xml$/.test(f));
    expect(slides.length).toBeGreaterThanOrEqual(3);
    const chart = Object.keys(files).find((f) => /^ppt\/charts\/chart\d+\.xml$/.test(f));
    expect(chart).toBeDefined();
    expect(strFromU8(files[chart!]!)).toContain('unclassified');
  });

  it('provenance of a rendered format: report, survey, bundle with its SHA-256, every input version, render time', async () => {
    const json0 = await json(await api(`${P(t.projectId)}/v1/report/${pqc}/export/json/provenance`, { token: t.token }));
    for (const format of FORMATS) {
      const res = await api(`${P(t.projectId)}/v1/report/${pqc}/export/${format}/provenance`, { token: t.token });
      expect(res.status).toBe(200);
      const p = await json(res);
      expect(p).toMatchObject({
        format, report: { id: pqc, type: 'pqc-inventory' }, survey: { id: survey.id }, bundle: { sha256: json0.bundle.sha256 },
        versions: { analysis: json0.versions.analysis, classification: json0.versions.classification, template: { format, version: expect.any(String) }, renderer: expect.any(String) },
        duration_ms: expect.any(Number), bytes: expect.any(Number), render_job_id: expect.any(String),
      });
      expect(p.versions.vulnerability_data).toEqual(json0.versions.vulnerability_data);
      expect(Date.parse(p.rendered_at)).toBeGreaterThanOrEqual(Date.parse(json0.report.produced_at));
    }
    expect(json0).toMatchObject({ duration_ms: null, render_job_id: null });
  });

  it('404 until a format is produced; 400 for an unknown format', async () => {
    const cbomReport = reportOf(survey, 'cbom').id;
    await runInDurableObject(projectStub(env, t.projectId), (_i, state) => {
      state.storage.sql.exec('DELETE FROM report_documents WHERE report_id = ? AND format = ?', cbomReport, 'xlsx');
    });
    await expectError(await exportOf(t, cbomReport, 'xlsx'), 404, 'not_found');
    await expectError(await api(`${P(t.projectId)}/v1/report/${cbomReport}/export/xlsx/provenance`, { token: t.token }), 404, 'not_found');
    expect((await json(await api(`${P(t.projectId)}/v1/report/${cbomReport}/export`, { token: t.token }))).formats).toEqual(['json', 'pdf', 'pptx', 'html', 'csv']);
    await expectError(await exportOf(t, cbomReport, 'docx'), 400, 'invalid_parameter');
    await expectError(await exportOf(t, crypto.randomUUID(), 'pdf'), 404, 'not_found');
  });
});

describe('stale projections (spec 4.10 rule 1)', () => {
  const stale = (query = '', token = t.token) => api(`${P(t.projectId)}/v1/projection/stale${query}`, { token });

  it('empty while every document is current; other template versions make those formats stale', async () => {
    expect(await json(await stale())).toEqual([]);
    const what = await json(await stale(`?templateVersions=${encodeURIComponent('{"pdf":"99"}')}`));
    expect(what.length).toBe(3);
    for (const entry of what) {
      expect(entry).toMatchObject({ survey_id: survey.id, format: 'pdf', reasons: [{ reason: 'template_version', rendered_with: PDF_TEMPLATE.version, current: '99' }] });
    }
    expect(what.map((e: any) => e.report_type).sort()).toEqual(['cbom', 'composition', 'pqc-inventory']);
  });

  it('a newer analysis logic makes a document stale', async () => {
    const composition = reportOf(survey, 'composition').id;
    await runInDurableObject(projectStub(env, t.projectId), (_i, state) => {
      state.storage.sql.exec('UPDATE report_documents SET analysis_version = ? WHERE report_id = ? AND format = ?', '0.9.0', composition, 'csv');
    });
    const entries = await json(await stale());
    expect(entries).toEqual([expect.objectContaining({ report_id: composition, format: 'csv', reasons: [expect.objectContaining({ reason: 'analysis_version', rendered_with: '0.9.0' })] })]);
    await runInDurableObject(projectStub(env, t.projectId), (_i, state) => {
      state.storage.sql.exec('UPDATE report_documents SET analysis_version = ? WHERE report_id = ? AND format = ?', entries[0].reasons[0].current, composition, 'csv');
    });
  });

  it('a decision about a report\'s findings after its documents were rendered makes them stale; one about another subject does not', async () => {
    const decide = async (finding: unknown) => {
      const res = await api(`${P(t.projectId)}/v1/decision`, { token: t.token, body: { finding, state: 'in_triage' } });
      expect(res.status).toBe(201);
      return json(res);
    };
    const withdraw = (id: string) => api(`${P(t.projectId)}/v1/decision/${id}`, { token: t.token, method: 'DELETE' });
    const elsewhere = await decide({ type: 'crypto', algorithm: 'RSA', subject: 'another-app' });
    expect(await json(await stale())).toEqual([]);
    const here = await decide({ type: 'crypto', algorithm: 'RSA', subject: 'vault <svc>' });
    const entries = await json(await stale());
    // The post-quantum inventory's documents: its findings are the cryptographic ones (the CBOM's carry no decisions).
    const pqcReport = reportOf(survey, 'pqc-inventory').id;
    expect(entries.length).toBeGreaterThan(0);
    for (const entry of entries) expect(entry).toMatchObject({ report_id: pqcReport, reasons: [{ reason: 'decision_changed', decided_at: here.decided_at }] });
    // Rendered again after the decision (as a regeneration would), they are current; the decisions are withdrawn for the tests after this one.
    await runInDurableObject(projectStub(env, t.projectId), (_i, state) => state.storage.sql.exec('UPDATE report_documents SET rendered_at = ? WHERE report_id = ?', new Date(Date.now() + 60_000).toISOString(), pqcReport));
    expect(await json(await stale())).toEqual([]);
    await withdraw(here.id);
    await withdraw(elsewhere.id);
    await runInDurableObject(projectStub(env, t.projectId), (_i, state) => state.storage.sql.exec('UPDATE report_documents SET rendered_at = ? WHERE report_id = ?', new Date(Date.now() + 120_000).toISOString(), pqcReport));
  });

  it('a survey replaced by a regenerated one makes its documents stale; parentId narrows to that survey and its versions', async () => {
    const other = await analysed(t, hostileCbom('other-app'));
    const regen = await api(`${P(t.projectId)}/v1/report/${pqc}/regenerate`, { token: t.token, method: 'POST' });
    expect(regen.status).toBe(202);
    const { job_id: newSurvey } = await json(regen);
    await buildReports({ projectId: t.projectId, surveyId: newSurvey, bundleId: '-', blobKey: '-' });
    expect((await getJob(t, newSurvey)).status).toBe('COMPLETED');
    const entries = await json(await stale(`?parentId=${survey.id}`));
    // Every document of the survey (one was deleted by the 404 test above).
    const held = await runInDurableObject(projectStub(env, t.projectId), (_i, state) => state.storage.sql.exec(
      'SELECT count(*) AS n FROM report_documents d JOIN reports r ON r.id = d.report_id WHERE r.survey_id = ?', survey.id).one().n as number);
    expect(held).toBeGreaterThanOrEqual(14);
    expect(entries.length).toBe(held);
    for (const entry of entries) expect(entry).toMatchObject({ survey_id: survey.id, reasons: [{ reason: 'source_replaced', replaced_by: newSurvey }] });
    expect(await json(await stale(`?parentId=${other.surveyId}`))).toEqual([]);
    expect((await json(await stale())).every((e: any) => e.survey_id === survey.id)).toBe(true);
  });

  it('400 for a template map that is not JSON or a parentId that is not a UUID; 403 without project:admin', async () => {
    await expectError(await stale('?templateVersions=%7Bnot-json'), 400, 'invalid_parameter');
    await expectError(await stale('?parentId=nope'), 400, 'invalid_parameter');
    const member = await addPerson(t, 'Member');
    await expectError(await stale('', member.token), 403, 'permission_denied');
  });
});

// Last: the stale projections above count this file's surveys.
describe('documents of a real CBOM through the pipeline (issue 20): temurin, 319 assets', () => {
  let report: string;
  let surveyId: string;
  beforeAll(async () => {
    const s = await analysed(t, temurin, { target: 'temurin-jdk' });
    surveyId = s.surveyId;
    report = reportOf(await getJob(t, s.surveyId), 'pqc-inventory').id;
    await rendered(t, report);
    // The survey's other reports render too: they finish before the tests read, so no consumer outlives its test.
    await letRendersFinish([t], 40_000);
  }, 90_000);

  it('readable at any size: the PDF stays under 15 pages; the XLSX, CSV and HTML keep every entry, grouped', async () => {
    const pdf = await PDFDocument.load(new Uint8Array(await (await exportOf(t, report, 'pdf')).arrayBuffer()));
    expect(pdf.getPageCount()).toBeLessThan(15);
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(await (await exportOf(t, report, 'xlsx')).arrayBuffer());
    expect(book.worksheets.slice(1).reduce((n, sheet) => n + sheet.actualRowCount - 1, 0)).toBe(319);
    const rows: string[][] = parseCsv(await (await exportOf(t, report, 'csv')).text(), { bom: true });
    expect(rows.length - 1).toBe(319);
    const html = parseHtml(await (await exportOf(t, report, 'html')).text());
    const trs: any[] = [];
    const walk = (node: any) => {
      if (node.tagName === 'tr') trs.push(node);
      for (const child of node.childNodes ?? []) walk(child);
    };
    walk(html);
    expect(trs.filter((tr) => tr.childNodes.some((c: any) => c.tagName === 'td')).length).toBe(319);
    expect(trs.filter((tr) => tr.attrs.some((a: any) => a.name === 'class' && a.value === 'group-head')).length).toBeGreaterThan(5);
  });

  it('"Where" shows the file from the occurrences; the XLSX summary names the survey by its id and target', async () => {
    const rows: string[][] = parseCsv(await (await exportOf(t, report, 'csv')).text(), { bom: true });
    const where = rows[0]!.indexOf('Where');
    expect(rows.filter((r) => r[where] === '/etc/ssl/cert.pem').length).toBeGreaterThan(200);
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(await (await exportOf(t, report, 'xlsx')).arrayBuffer());
    const summary: Record<string, unknown> = {};
    book.getWorksheet('Summary')!.eachRow((row) => void (summary[String(row.getCell(1).value)] ??= row.getCell(2).value));
    expect(summary).toMatchObject({ Survey: surveyId, Target: 'temurin-jdk', Tag: 'none' });
  });
});

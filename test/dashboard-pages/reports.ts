// The dashboard's report viewer (issue 21, pages item 4) on DASHBOARD_HOST: the reports index, a
// report's figures and paged sections, search (page and htmx fragment), downloads streamed through
// the dashboard, render status and provenance, compare, render again and regenerate, over real
// surveys of real bundles (a Maven SBOM twice, IBM CBOMkit's Kafka CBOM) run by the real consumers.
import { env } from 'cloudflare:workers';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { OsvRecord } from '../../src/analysis/vulns/osv-types';
import { importRecords } from '../../src/vulndb/import';
import log4shell from '../../vulndb/starter/GHSA-jfh8-c2jp-5v3q.json';
import kafka from '../fixtures/cbom/ibm-cbomkit__kafka-cbom.json?raw';
import { expectPage, fragmentOf, page, post, signInThroughDashboard, submit, textOf, unescape, visit } from '../dashboard';
import { dataTenant } from '../data-plane';
import { api, json } from '../helpers';
import { addPerson } from '../people';
import { analysed, getJob, letRendersFinish, log4j, mavenSbom, P, renderDocuments } from '../pipeline';

type T = Awaited<ReturnType<typeof dataTenant>>;

const reportOf = (survey: any, label: string): string => survey.steps.find((s: any) => s.step_label === label).id;

let t: T;
let cookie: string;
let viewerCookie: string;
let first: any;
let second: any;
let cbom: any;
let base: string;

const apiGet = async (path: string) => json(await api(`${P(t.projectId)}/v1${path}`, { token: t.token }));

beforeAll(async () => {
  await importRecords(env.DB, [log4shell as unknown as OsvRecord], 'test');
  t = await dataTenant('dash-reports');
  first = await getJob(t, (await analysed(t, mavenSbom('shop', [log4j('2.14.1'), log4j('2.17.1'), ['com.example', 'other', '1.0.0']]))).surveyId);
  second = await getJob(t, (await analysed(t, mavenSbom('shop', [log4j('2.14.1'), log4j('2.0')]))).surveyId);
  cbom = await getJob(t, (await analysed(t, kafka, { target: 'kafka' })).surveyId);
  cookie = await signInThroughDashboard(t.user.email);
  const viewer = await addPerson(t, 'Viewer', 'report-viewer');
  viewerCookie = await signInThroughDashboard(viewer.user.email);
  base = `/projects/${t.projectId}/reports`;
}, 120_000);

afterAll(() => letRendersFinish([t], 30_000));

describe('the reports index', () => {
  it('lists completed surveys newest first, each linking to its reports with their headline', async () => {
    const html = await expectPage(await page(base, cookie), 200, 'Reports');
    const text = textOf(html);
    expect(text).toContain('kafka');
    expect(text).toContain('shop');
    // Newest first: the Kafka CBOM's survey before the shop's.
    expect(html.indexOf(reportOf(cbom, 'pqc-inventory'))).toBeLessThan(html.indexOf(reportOf(second, 'composition')));
    expect(html.indexOf(reportOf(second, 'composition'))).toBeLessThan(html.indexOf(reportOf(first, 'composition')));
    for (const label of ['pqc-inventory', 'cbom', 'composition']) expect(html).toContain(`href="${base}/${reportOf(first, label)}"`);
    // The second survey's composition headline: two critical findings.
    expect(text).toMatch(/Software composition · 2 critical, 0 high/);
    expect(html).toContain('aria-current="page">Reports</a>');
  });

  it('an empty project says what to do next', async () => {
    const other = await dataTenant('dash-reports-empty');
    const html = await expectPage(await page(`/projects/${other.projectId}/reports`, await signInThroughDashboard(other.user.email)), 200, 'Reports');
    expect(textOf(html)).toContain('No survey of this project has finished with reports yet');
    expect(html).toContain('posture upload');
  });
});

describe('a report: figures, sections paged, totals', () => {
  it('the composition report shows its figures and the critical section with the real entries', async () => {
    const id = reportOf(second, 'composition');
    const html = await expectPage(await page(`${base}/${id}`, cookie), 200, 'shop: Software composition');
    const text = textOf(html);
    expect(text).toMatch(/Vulnerable components 2/);
    expect(text).toMatch(/Advisories 1/);
    // The open section is the first with entries (critical), with its total.
    expect(html).toMatch(/<a href="[^"]+\?section=critical" aria-current="page">/);
    expect(text).toContain('Critical: 2 entries');
    expect(text).toContain('pkg:maven/org.apache.logging.log4j/log4j-core@2.0');
    expect(text).toContain('GHSA-jfh8-c2jp-5v3q · CVE-2021-44228');
    expect(text).toContain('2.14.1 · fixed in 2.15.0');
    expect(text).toContain('1–2 of 2 in critical');
    // Since the subject's previous survey: one more critical finding.
    expect(text).toContain('Since the subject\'s previous survey: 1 new critical');
    expect(html).toContain(`href="${base}/${id}/compare?with=${reportOf(first, 'composition')}">Compare with the previous report</a>`);
    // A table with its caption and scopes.
    expect(html).toMatch(/<caption[^>]*>Critical: 2 entries<\/caption>/);
    expect(html).toContain('<th scope="col"');
  });

  it('the pqc inventory of the Kafka CBOM: sections red, yellow, transition and green with totals, paged through the API', async () => {
    const id = reportOf(cbom, 'pqc-inventory');
    const summary = await apiGet(`/report/${id}/summary`);
    const totals = Object.fromEntries(summary.sections.filter((s: any) => s.kind === 'list').map((s: any) => [s.name, s.total]));
    const html = await expectPage(await page(`${base}/${id}`, cookie), 200, 'kafka: Post-quantum inventory');
    for (const section of ['red', 'yellow', 'transition', 'green']) {
      expect(html).toContain(`href="${base}/${id}?section=${section}"`);
      expect(unescape(html)).toMatch(new RegExp(`section=${section}"[^>]*>.*?<span class="tab-count">${totals[section]}</span>`));
    }
    // The red section, as the API pages it.
    const red = await apiGet(`/report/${id}/section/red?limit=100`);
    expect(red.entries.length).toBeGreaterThan(0);
    const redPage = textOf(await expectPage(await page(`${base}/${id}?section=red`, cookie), 200, 'kafka: Post-quantum inventory'));
    for (const entry of red.entries) expect(redPage).toContain(entry.name);
    expect(redPage).toContain(`Red: ${totals.red} ${totals.red === 1 ? 'entry' : 'entries'}`);
    // An offset past the end: the total stays, no rows, a link back.
    const beyond = await expectPage(await page(`${base}/${id}?section=red&offset=100`, cookie), 200, 'kafka: Post-quantum inventory');
    expect(textOf(beyond)).toContain(`the section has ${totals.red}`);
    expect(beyond).toContain(`href="${base}/${id}?section=red" rel="prev"`);
    // An empty section says so.
    const empty = Object.entries(totals).find(([, n]) => n === 0)?.[0];
    if (empty) expect(textOf(await (await page(`${base}/${id}?section=${empty}`, cookie)).text())).toContain('section is empty');
  });

  it('a page of a section as an htmx fragment: only the results, with their nonce-free markup', async () => {
    const id = reportOf(cbom, 'pqc-inventory');
    const res = await fragmentOf(`${base}/${id}?section=red`, cookie);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).not.toContain('<html');
    expect(html).not.toMatch(/<h1/);
    expect(html).toMatch(/<caption[^>]*>Red:/);
  });
});

describe('search across sections', () => {
  it('the GET form works without script: the matches with their sections', async () => {
    const id = reportOf(second, 'composition');
    const html = await expectPage(await page(`${base}/${id}?q=${encodeURIComponent('log4j-core@2.0')}`, cookie), 200, 'shop: Software composition');
    const text = textOf(html);
    expect(text).toContain('1 match for “log4j-core@2.0”');
    expect(text).toContain('pkg:maven/org.apache.logging.log4j/log4j-core@2.0');
    expect(text).not.toContain('log4j-core@2.14.1');
    // The form: a labelled search box, htmx attributes with the page's nonce, debounced as one types.
    expect(html).toMatch(/<form method="get" action="[^"]+" role="search"[^>]*hx-trigger="input changed delay:300ms, submit"/);
    expect(html).toMatch(/hx-nonce="[0-9a-f]{32}"/);
    expect(html).toContain('<label class="label" for="report-search">');
    expect(html).toContain('value="log4j-core@2.0"');
  });

  it('as an htmx fragment: the same matches the API finds, across sections; none says what to try', async () => {
    const id = reportOf(cbom, 'pqc-inventory');
    const matches = await apiGet(`/report/${id}/search?query=RSA`);
    expect(matches.length).toBeGreaterThan(0);
    const res = await fragmentOf(`${base}/${id}?q=RSA`, cookie);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).not.toContain('<html');
    expect(textOf(html)).toContain(`${matches.length} ${matches.length === 1 ? 'match' : 'matches'} for “RSA”`);
    for (const m of matches) expect(unescape(html)).toContain(m.name);
    expect(html).toContain('role="status"');
    const none = await (await fragmentOf(`${base}/${id}?q=no-such-algorithm`, cookie)).text();
    expect(textOf(none)).toContain('No entry matches “no-such-algorithm”');
  });
});

describe('downloads streamed through the dashboard host', () => {
  it('every format the API renders, with its type and attachment name; the PDF starts with %PDF', async () => {
    const id = reportOf(cbom, 'pqc-inventory');
    await renderDocuments(t, { reportIds: [id] });
    await vi.waitFor(async () => {
      expect((await apiGet(`/report/${id}/export`)).formats).toEqual(['json', 'pdf', 'xlsx', 'pptx', 'html', 'csv']);
    }, { timeout: 30_000, interval: 200 });
    const html = await (await page(`${base}/${id}`, cookie)).text();
    for (const format of ['pdf', 'xlsx', 'csv', 'html', 'pptx', 'json']) expect(html).toContain(`href="${base}/${id}/export/${format}" download=""`);
    expect(html).not.toContain('Not rendered yet');
    const expected: Record<string, [RegExp, (b: Uint8Array) => boolean]> = {
      pdf: [/^application\/pdf/, (b) => new TextDecoder().decode(b.slice(0, 4)) === '%PDF'],
      xlsx: [/spreadsheetml/, (b) => b[0] === 0x50 && b[1] === 0x4b],
      pptx: [/presentationml/, (b) => b[0] === 0x50 && b[1] === 0x4b],
      csv: [/^text\/csv/, (b) => b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf],
      html: [/^text\/html/, (b) => /^<!doctype html>/i.test(new TextDecoder().decode(b.slice(0, 15)))],
      json: [/^application\/json/, (b) => new TextDecoder().decode(b.slice(0, 8)) === '{"data":'],
    };
    for (const [format, [type, starts]] of Object.entries(expected)) {
      const res = await page(`${base}/${id}/export/${format}`, cookie);
      expect(res.status, format).toBe(200);
      expect(res.headers.get('content-type'), format).toMatch(type);
      expect(res.headers.get('content-disposition'), format).toBe(`attachment; filename="report.${format}"`);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('content-security-policy')).toContain('sandbox');
      const bytes = new Uint8Array(await res.arrayBuffer());
      expect(starts(bytes), format).toBe(true);
    }
    // It renders all five documents first (the PDF alone takes seconds): 16 to 19 s on loaded CI runs.
  }, 60_000);

  it('the CycloneDX document of a cbom report; 404 for a format not rendered; 303 to sign-in without the cookie', async () => {
    const id = reportOf(cbom, 'cbom');
    const res = await page(`${base}/${id}/export/cyclonedx`, cookie);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="report.cdx.json"');
    expect(await res.json<any>()).toMatchObject({ bomFormat: 'CycloneDX', specVersion: '1.6' });
    const unknown = await page(`${base}/${crypto.randomUUID()}/export/pdf`, cookie);
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toMatch(/^text\/html/);
    const anonymous = await visit(`${base}/${id}/export/pdf`);
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.get('location')).toBe('/sign-in');
    expect((await page(`${base}/${id}/export/docx`, cookie)).status).toBe(404);
  });
});

describe('documents: render status, provenance, stale, render again and regenerate', () => {
  it('the job list pages a report\'s render jobs with parentId (the API filter the page uses)', async () => {
    const id = reportOf(first, 'pqc-inventory');
    await renderDocuments(t, { reportIds: [id] });
    await vi.waitFor(async () => {
      const { jobs } = await apiGet(`/job?parentId=${id}`);
      expect(jobs.map((j: any) => j.step_label).sort()).toEqual(['render:csv', 'render:html', 'render:pdf', 'render:pptx', 'render:xlsx']);
      expect(jobs.every((j: any) => j.parent_id === id && j.status === 'COMPLETED')).toBe(true);
    }, { timeout: 30_000, interval: 200 });
    const steps = (await apiGet(`/job?parentId=${first.id}`)).jobs;
    expect(steps.map((s: any) => s.step_label).sort()).toEqual(['analyze', 'cbom', 'composition', 'pqc-inventory', 'upload']);
    const bad = await api(`${P(t.projectId)}/v1/job?parentId=nope`, { token: t.token });
    expect(bad.status).toBe(400);
  });

  it('shows each format\'s render status and the provenance of the one chosen; an admin sees the stale notice (none here)', async () => {
    const id = reportOf(first, 'pqc-inventory');
    const html = await expectPage(await page(`${base}/${id}/documents`, cookie), 200, 'Documents: shop: Post-quantum inventory');
    const text = textOf(html);
    expect(text).toContain('Documents of this report');
    expect(text.match(/completed/g)?.length).toBeGreaterThanOrEqual(5);
    const provenance = await apiGet(`/report/${id}/export/json/provenance`);
    expect(text).toContain(provenance.bundle.sha256);
    expect(text).toContain(`logic ${provenance.versions.analysis}`);
    expect(text).not.toContain('are stale');
    const pdf = await apiGet(`/report/${id}/export/pdf/provenance`);
    const pdfPage = textOf(await expectPage(await page(`${base}/${id}/documents?format=pdf`, cookie), 200, /^Documents:/));
    expect(pdfPage).toContain('Provenance of the PDF document');
    expect(pdfPage).toContain(`pdf version ${pdf.versions.template.version}, written with ${pdf.versions.renderer}`);
    // A member may edit: render again and regenerate are offered.
    expect(html).toContain(`action="${base}/${id}/render"`);
    expect(html).toContain(`action="${base}/${id}/regenerate"`);
    expect(html).toContain('<dialog id="regenerate-report"');
  });

  it('render again: 303 back to the documents, and new render jobs run', async () => {
    const id = reportOf(first, 'cbom');
    const before = (await apiGet(`/job?parentId=${id}`)).jobs.length;
    const res = await submit(`${base}/${id}/render`, cookie);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`${base}/${id}/documents?done=rendering`);
    expect((await apiGet(`/job?parentId=${id}`)).jobs.length).toBe(before + 5);
    expect(textOf(await (await page(res.headers.get('location')!, cookie)).text())).toContain('being rendered again');
  });

  it('regenerate: 303 naming the new survey; asked again while it is produced, a notice instead', async () => {
    const id = reportOf(cbom, 'cbom');
    const res = await submit(`${base}/${id}/regenerate`, cookie);
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get('location')!, 'https://x');
    expect(location.pathname).toBe(`${base}/${id}/documents`);
    const surveyId = location.searchParams.get('survey')!;
    expect(await getJob(t, surveyId)).toMatchObject({ supersedes: cbom.id });
    const again = await submit(`${base}/${id}/regenerate`, cookie);
    expect(again.headers.get('location')).toBe(`${base}/${id}/documents?done=refused`);
    expect(textOf(await (await page(again.headers.get('location')!, cookie)).text())).toContain('already being produced or is ready');
  });
});

describe('compare two reports', () => {
  it('picks the other report from a list of the same type and shows added, removed, moved and unchanged', async () => {
    const to = reportOf(second, 'composition');
    const from = reportOf(first, 'composition');
    const picker = await expectPage(await page(`${base}/${to}/compare`, cookie), 200, 'Compare: shop: Software composition');
    expect(picker).toContain(`<option value="${from}"`);
    // Only reports of the same type are offered.
    expect(picker).not.toContain(`<option value="${reportOf(first, 'pqc-inventory')}"`);
    const html = await expectPage(await page(`${base}/${to}/compare?with=${from}`, cookie), 200, 'Compare: shop: Software composition');
    const text = textOf(html);
    expect(text).toMatch(/Added 1 Removed 0 Moved 0 Unchanged 1/);
    expect(text).toContain('pkg:maven/org.apache.logging.log4j/log4j-core@2.0');
    expect(html).toContain(`<option value="${from}" selected=""`);
    const removed = textOf(await (await page(`${base}/${to}/compare?with=${from}&list=removed`, cookie)).text());
    expect(removed).toContain('Nothing removed');
    // The other way round: what was added is removed.
    const swapped = textOf(await (await page(`${base}/${from}/compare?with=${to}&list=removed`, cookie)).text());
    expect(swapped).toContain('Removed: 1 finding');
    expect(swapped).toContain('log4j-core@2.0');
  });

  it('reports of different types do not compare (the API\'s 400 as a page)', async () => {
    const res = await page(`${base}/${reportOf(second, 'composition')}/compare?with=${reportOf(first, 'cbom')}`, cookie);
    expect(res.status).toBe(400);
  });
});

describe('who may see and do what', () => {
  const paths = () => {
    const id = reportOf(second, 'composition');
    return [base, `${base}/${id}`, `${base}/${id}?q=log4j`, `${base}/${id}/documents`, `${base}/${id}/compare`, `${base}/${id}/export/json`];
  };

  it('without a cookie every page leads to sign-in (303)', async () => {
    for (const path of paths()) {
      const res = await visit(path);
      expect(res.status, path).toBe(303);
      expect(res.headers.get('location')).toBe('/sign-in');
    }
  });

  it('a Viewer reads the report but is offered no action; a forged POST is refused (403) and changes nothing', async () => {
    const id = reportOf(second, 'pqc-inventory');
    await expectPage(await page(`${base}/${id}`, viewerCookie), 200, 'shop: Post-quantum inventory');
    const html = await expectPage(await page(`${base}/${id}/documents`, viewerCookie), 200, /^Documents:/);
    expect(html).not.toContain(`action="${base}/${id}/render"`);
    expect(html).not.toContain(`action="${base}/${id}/regenerate"`);
    expect(html).not.toContain('<form method="post" action="/projects');
    const before = (await apiGet(`/job?parentId=${id}`)).jobs.length;
    for (const action of ['render', 'regenerate']) {
      const res = await submit(`${base}/${id}/${action}`, viewerCookie);
      const body = await res.clone().text();
      expect(res.status, action + textOf(body)).toBe(403);
      expect(textOf(await res.text())).toContain('project:edit');
    }
    expect((await apiGet(`/job?parentId=${id}`)).jobs.length).toBe(before);
    expect((await apiGet(`/job?topLevel=true`)).jobs.filter((j: any) => j.supersedes === second.id)).toEqual([]);
  });

  it('another organization\'s project or report: 404, nothing of it shown', async () => {
    const stranger = await dataTenant('dash-reports-stranger');
    const strangerCookie = await signInThroughDashboard(stranger.user.email);
    for (const path of paths()) {
      const res = await page(path, strangerCookie);
      expect(res.status, path).toBe(404);
      const text = textOf(await res.text());
      expect(text).not.toContain('shop');
      expect(text).not.toContain('log4j');
    }
    // The stranger's own project, naming this project's report.
    const res = await page(`/projects/${stranger.projectId}/reports/${reportOf(second, 'composition')}`, strangerCookie);
    expect(res.status, textOf(await res.clone().text())).toBe(404);
    expect(textOf(await res.text())).not.toContain('log4j');
  });

  it('a POST from another site is refused (403) and renders nothing', async () => {
    const id = reportOf(second, 'cbom');
    const before = (await apiGet(`/job?parentId=${id}`)).jobs.length;
    for (const action of ['render', 'regenerate']) {
      const res = await post(`${base}/${id}/${action}`, {}, { origin: 'https://evil.example', cookie });
      expect(res.status).toBe(403);
    }
    expect((await apiGet(`/job?parentId=${id}`)).jobs.length).toBe(before);
  });
});

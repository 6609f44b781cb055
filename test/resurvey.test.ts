// Re-surveys of an unchanged bundle reuse the subject's contents (issue 22; docs/decisions.md,
// "Unchanged bundles reuse the subject's contents"): real surveys through the queue handler, the same
// bundle surveyed again (the fast path: no content row written), and again with INCREMENTAL_SURVEYS=off
// (a full analysis); the three reports of the two compared entry by entry, ids and times aside.
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OsvRecord } from '../src/analysis/vulns/osv-types';
import { projectStub } from '../src/project/client';
import { eraseExpiredSurveys } from '../src/project/erasure';
import { queuePurge } from '../src/project/purges';
import type { ProjectState } from '../src/project/state';
import { importRecords } from '../src/vulndb/import';
import { cbom } from './cbom-fixtures';
import { dataTenant } from './data-plane';
import { api, json } from './helpers';
import { analysed, analyzeStep, contentsOf, drainPurges, getJob, letRendersFinish, letScoringFinish, P, renderDocuments, sbom, settleScoring, storedRowCount, tarGz } from './pipeline';

const advisories = Object.values(import.meta.glob('./fixtures/osv/*.json', { import: 'default', eager: true })) as OsvRecord[];
/** Held back until the vulnerability data changes between two surveys: it affects ws 7.4.0. */
const WS = 'GHSA-3h5v-q93c-6h6q';

type T = Awaited<ReturnType<typeof dataTenant>>;
const DAY = 86_400_000;

const PACKAGES: [string, string][] = [['lodash', '4.17.15'], ['ws', '7.4.0'], ['minimist', '1.2.5'], ['express', '4.17.0'], ['left-pad', '1.3.0']];
/** An SBOM and a CBOM in one bundle: every report type has entries. */
const bundleOf = (packages: [string, string][]) => tarGz({ 'app.cdx.json': sbom('shop', packages), 'crypto.cbom.json': cbom('cyclonedx-spec__valid-cryptography-full-1.6.json') });

const inObject = <R>(t: T, body: (state: ProjectState) => R | Promise<R>) =>
  runInDurableObject(projectStub(env, t.projectId), (instance) => body((instance as unknown as { state(): ProjectState }).state()));

/** Sets INCREMENTAL_SURVEYS on the project object's own environment, where the analysis reads it. */
const incremental = (t: T, value: 'off' | undefined) => inObject(t, (state) => { state.env.INCREMENTAL_SURVEYS = value; });

/** A survey of `bundle` about `shop`, with the fast path as `mode` says; answers the survey's job. */
async function survey(t: T, bundle: Uint8Array, mode: 'incremental' | 'full' = 'incremental') {
  if (mode === 'full') await incremental(t, 'off');
  try {
    const done = await analysed(t, bundle, { target: 'shop' });
    const job = await getJob(t, done.surveyId);
    expect(job.status).toBe('COMPLETED');
    return job;
  } finally {
    if (mode === 'full') await incremental(t, undefined);
  }
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const TIME = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g;
/** A report value with its ids and times replaced: what must be equal between two surveys of the same bundle. */
const normalized = (value: unknown) => JSON.parse(JSON.stringify(value).replace(UUID, '<id>').replace(TIME, '<time>'));

/** Every list section of a report, entry by entry, through the API. */
async function entriesOf(t: T, reportId: string): Promise<Record<string, unknown[]>> {
  const summary = await json(await api(`${P(t.projectId)}/v1/report/${reportId}/summary`, { token: t.token }));
  const out: Record<string, unknown[]> = {};
  for (const section of (summary.sections ?? summary.summary?.sections) as { name: string; kind: string }[]) {
    if (section.kind !== 'list') continue;
    const page = await json(await api(`${P(t.projectId)}/v1/report/${reportId}/section/${section.name}?limit=10000`, { token: t.token }));
    out[section.name] = page.entries;
  }
  return out;
}

/** A survey's reports by type: the full document and every entry. */
async function reportsOf(t: T, job: any) {
  const out: Record<string, { full: unknown; entries: Record<string, unknown[]> }> = {};
  for (const step of job.steps.filter((s: any) => s.step_type === 'REPORT')) {
    expect(step.status).toBe('COMPLETED');
    const full = await json(await api(`${P(t.projectId)}/v1/report/${step.id}`, { token: t.token }));
    out[step.step_label] = { full, entries: await entriesOf(t, step.id) };
  }
  return out;
}

/** Compares two surveys' reports entry by entry, ids and times aside (`b` of project `tb` when given). */
async function expectSameReports(t: T, a: any, b: any, tb: T = t) {
  const [left, right] = [await reportsOf(t, a), await reportsOf(tb, b)];
  expect(Object.keys(left).sort()).toEqual(['cbom', 'composition', 'pqc-inventory']);
  expect(Object.keys(right).sort()).toEqual(Object.keys(left).sort());
  for (const type of Object.keys(left)) {
    const [l, r] = [left[type]!, right[type]!];
    expect(Object.values(l.entries).flat().length, `${type} has entries`).toBeGreaterThan(0);
    for (const section of Object.keys(l.entries)) {
      expect(normalized(r.entries[section]), `${type} ${section}`).toEqual(normalized(l.entries[section]));
    }
    expect(normalized(r.full), `${type} full document`).toEqual(normalized(l.full));
  }
  return { left, right };
}

const allRows = (t: T) => inObject(t, (state) => Number(state.sql.exec('SELECT count(*) AS n FROM contents').one().n));
/** The ANALYZE step's metadata about the bundle, without what belongs to one run. */
const bundleMetadata = (job: any) => {
  const { bundleId: _b, attempt: _a, reused_from: _r, ...rest } = analyzeStep(job).metadata;
  return rest;
};
const reportSteps = (job: any) => job.steps.filter((s: any) => s.step_type === 'REPORT');
/** The report each REPORT step was copied from (src/project/report-reuse.ts), null when it was built. */
const copiedFrom = (job: any) => Object.fromEntries(reportSteps(job).map((s: any) => [s.step_label, s.metadata.copied_from ?? null]));
const advisoryIds = (items: any[]) => items.map((i) => i.data.advisory_id as string).sort();

let tenants: T[] = [];

beforeAll(async () => {
  await importRecords(env.DB, advisories.filter((r) => r.id !== WS), 'fixtures');
});

afterAll(async () => {
  await letRendersFinish(tenants);
  await letScoringFinish(tenants);
});

describe('an unchanged bundle reuses the subject\'s contents', () => {
  let t: T;
  let first: any;
  let reused: any;
  let full: any;
  let bundle: Uint8Array;

  beforeAll(async () => {
    t = await dataTenant('resurvey');
    tenants.push(t);
    bundle = await bundleOf(PACKAGES);
    first = await survey(t, bundle);
    await drainPurges(t.projectId);
    reused = await survey(t, bundle);
    await drainPurges(t.projectId);
    full = await survey(t, bundle, 'full');
    await drainPurges(t.projectId);
  }, 120_000);

  it('the first survey analyses the bundle; the same bundle again writes no content row and says whose analysis it reused', async () => {
    expect(analyzeStep(first).metadata.reused_from).toBeUndefined();
    expect(analyzeStep(first).metadata.versions).toEqual({ analysis: expect.any(String), classification: expect.any(String) });
    const step = analyzeStep(reused);
    expect(step.status).toBe('COMPLETED');
    expect(step.metadata.reused_from).toBe(first.id);
    expect(step.message).toContain(`survey ${first.id}`);
    // Counts, formats, documents, skipped...: what the bundle holds, as the first analysis found it.
    expect(bundleMetadata(reused)).toEqual(bundleMetadata(first));
    expect(reused.metadata.subject).toBe('shop');
  });

  it('far fewer content rows: none for the reused survey, a full set for the survey with INCREMENTAL_SURVEYS=off', async () => {
    expect(analyzeStep(full).metadata.reused_from).toBeUndefined();
    expect(await storedRowCount(t.projectId, reused.id)).toBe(0);
    const fullRows = await storedRowCount(t.projectId, full.id);
    expect(fullRows).toBeGreaterThan(PACKAGES.length);
    // The full survey's rows are the subject's contents now; the first survey's went (nothing else is left).
    expect(await storedRowCount(t.projectId, first.id)).toBe(0);
    expect(await allRows(t)).toBe(fullRows);
    expect(bundleMetadata(full)).toEqual(bundleMetadata(reused));
  });

  it('the three reports of the reused survey equal those of the full analysis, entry by entry', async () => {
    await expectSameReports(t, reused, full);
  });

  it('the reused survey copies the first survey\'s three reports; the full analysis builds its own', async () => {
    expect(copiedFrom(reused)).toEqual(Object.fromEntries(reportSteps(first).map((s: any) => [s.step_label, s.id])));
    expect(copiedFrom(first)).toEqual({ cbom: null, composition: null, 'pqc-inventory': null });
    expect(copiedFrom(full)).toEqual({ cbom: null, composition: null, 'pqc-inventory': null });
    // The copies have their own document (its own start) and their own entries.
    for (const step of reportSteps(reused)) {
      const full = await json(await api(`${P(t.projectId)}/v1/report/${step.id}`, { token: t.token }));
      expect(JSON.stringify(full)).not.toContain(first.id);
    }
    const own = await inObject(t, (state) => Number(state.sql.exec('SELECT count(*) AS n FROM report_entries WHERE report_id IN (SELECT value FROM json_each(?))',
      JSON.stringify(reportSteps(reused).map((s: any) => s.id))).one().n));
    expect(own).toBeGreaterThan(0);
  });

  it('a report of another day is built again, not copied (deadlines are judged against the date)', async () => {
    const again = await survey(t, bundle);
    expect(analyzeStep(again).metadata.reused_from).toBe(full.id);
    expect(Object.values(copiedFrom(again)).every((id) => id !== null)).toBe(true);
    // Every report of the project moves to a day in 2020, in the same order.
    await inObject(t, (state) => state.sql.exec("UPDATE reports SET produced_at = '2020-01-01' || substr(produced_at, 11)"));
    const later = await survey(t, bundle);
    expect(analyzeStep(later).metadata.reused_from).toBe(again.id);
    expect(copiedFrom(later)).toEqual({ cbom: null, composition: null, 'pqc-inventory': null });
    await expectSameReports(t, later, again);
  });

  it('a bundle with one component changed is analysed again (not reused), and its reports differ accordingly', async () => {
    const changed = await survey(t, await bundleOf(PACKAGES.map(([name, version]) => (name === 'lodash' ? [name, '4.17.21'] : [name, version]))));
    expect(analyzeStep(changed).metadata.reused_from).toBeUndefined();
    expect(await storedRowCount(t.projectId, changed.id)).toBeGreaterThan(PACKAGES.length);
    const [before, after] = [await reportsOf(t, full), await reportsOf(t, changed)];
    // The composition lists the new version, and lodash 4.17.15's advisories are gone.
    const entries = (r: typeof before) => Object.values(r.composition!.entries).flat() as any[];
    const lodash = (r: typeof before) => entries(r).filter((e) => JSON.stringify(e).includes('pkg:npm/lodash@'));
    expect(JSON.stringify(lodash(before))).toContain('4.17.15');
    expect(JSON.stringify(lodash(after))).not.toContain('4.17.15');
    expect(normalized(after.composition!.entries)).not.toEqual(normalized(before.composition!.entries));
    // The crypto assets did not change: neither did the cbom report.
    expect(normalized(after.cbom!.entries)).toEqual(normalized(before.cbom!.entries));
  });
});

describe('vulnerability data that changed since the reused analysis is applied', () => {
  it('a new advisory for a component of the bundle is in the reused survey\'s findings and reports, as in a full analysis', async () => {
    const t = await dataTenant('resurvey-vulns');
    tenants.push(t);
    const bundle = await bundleOf(PACKAGES);
    const first = await survey(t, bundle);
    expect(advisoryIds((await contentsOf(t.projectId, 'shop', 'vuln_finding')).items)).not.toContain(WS);
    const before = analyzeStep(first).metadata.findings.advisories as number;

    expect(await importRecords(env.DB, advisories.filter((r) => r.id === WS), 'resurvey-test')).toMatchObject({ inserted: 1 });
    const reused = await survey(t, bundle);
    expect(analyzeStep(reused).metadata.reused_from).toBe(first.id);
    expect(await storedRowCount(t.projectId, reused.id)).toBe(0);
    const findings = advisoryIds((await contentsOf(t.projectId, 'shop', 'vuln_finding')).items);
    expect(findings).toContain(WS);
    expect(analyzeStep(reused).metadata.findings.advisories).toBe(before + 1);

    // Its findings changed since the first survey's reports were built: they are built again, not copied.
    expect(copiedFrom(reused)).toEqual({ cbom: null, composition: null, 'pqc-inventory': null });

    const full = await survey(t, bundle, 'full');
    expect(advisoryIds((await contentsOf(t.projectId, 'shop', 'vuln_finding')).items)).toEqual(findings);
    expect(analyzeStep(full).metadata.findings).toEqual(analyzeStep(reused).metadata.findings);
    const { left } = await expectSameReports(t, reused, full);
    expect(JSON.stringify(left.composition!.entries)).toContain(WS);
  });
});

describe('what the reused contents outlive', () => {
  it('deleting the survey that analysed the bundle, and erasing it after its retention, leaves the subject\'s contents whole', async () => {
    const t = await dataTenant('resurvey-erase');
    tenants.push(t);
    const bundle = await bundleOf(PACKAGES);
    const first = await survey(t, bundle);
    const reused = await survey(t, bundle);
    expect(analyzeStep(reused).metadata.reused_from).toBe(first.id);
    const held = await contentsOf(t.projectId, 'shop');
    const advisoriesHeld = (await contentsOf(t.projectId, 'shop', 'vuln_finding')).total;
    const rows = await allRows(t);
    expect(rows).toBeGreaterThan(0);

    expect((await api(`${P(t.projectId)}/v1/survey/${first.id}`, { method: 'DELETE', token: t.token })).status).toBe(200);
    await renderDocuments(t);
    const deletedAt = Date.parse((await getJob(t, first.id)).deleted_at);
    expect(await inObject(t, (state) => eraseExpiredSurveys(state, deletedAt + 400 * DAY))).toBeNull();
    expect((await getJob(t, first.id)).metadata).toMatchObject({ filesErased: true });
    await drainPurges(t.projectId);

    expect(await allRows(t)).toBe(rows);
    expect(await contentsOf(t.projectId, 'shop')).toEqual(held);
    expect((await contentsOf(t.projectId, 'shop', 'vuln_finding')).total).toBe(advisoriesHeld);
    // The reused survey's reports still read, and a third survey of the bundle still reuses the rows.
    const reports = reused.steps.filter((s: any) => s.step_type === 'REPORT');
    for (const report of reports) expect((await api(`${P(t.projectId)}/v1/report/${report.id}`, { token: t.token })).status).toBe(200);
    const third = await survey(t, bundle);
    expect(analyzeStep(third).metadata.reused_from).toBe(reused.id);
    expect(await storedRowCount(t.projectId, third.id)).toBe(0);
    await drainPurges(t.projectId);
    expect(await allRows(t)).toBe(rows);
  }, 60_000); // three surveys and their renders: beside 21 other files, more than the default 20 s

  it('a survey of another bundle in between takes the subject\'s contents: the old bundle again is analysed in full', async () => {
    const t = await dataTenant('resurvey-between');
    tenants.push(t);
    const bundle = await bundleOf(PACKAGES);
    await survey(t, bundle);
    await survey(t, await bundleOf(PACKAGES.slice(1)));
    const again = await survey(t, bundle);
    expect(analyzeStep(again).metadata.reused_from).toBeUndefined();
    expect(await storedRowCount(t.projectId, again.id)).toBeGreaterThan(0);
  });
});

/** An SBOM with a dependency graph: bom-refs are purls, the application depends on every component, each on the next. */
function graphSbom(packages: [string, string][]): string {
  const ref = ([name, version]: [string, string]) => `pkg:npm/${name}@${version}`;
  return JSON.stringify({
    bomFormat: 'CycloneDX', specVersion: '1.6', version: 1,
    metadata: { component: { type: 'application', name: 'shop', 'bom-ref': 'shop' } },
    components: packages.map((p) => ({ type: 'library', name: p[0], version: p[1], purl: ref(p), 'bom-ref': ref(p) })),
    dependencies: [
      { ref: 'shop', dependsOn: packages.slice(0, 20).map(ref) },
      ...packages.map((p, i) => ({ ref: ref(p), dependsOn: packages[i + 1] ? [ref(packages[i + 1]!)] : [] })),
    ],
  });
}

/** 500 components, the five of PACKAGES (with advisories) among them. */
const LARGE: [string, string][] = [...PACKAGES, ...Array.from({ length: 495 }, (_, i): [string, string] => [`pkg-${String(i).padStart(3, '0')}`, '1.0.0'])];
/** 1% of LARGE changed: two versions bumped (lodash 4.17.15 loses its advisories), one component removed, two added. */
const CHANGED: [string, string][] = [
  ...LARGE.filter(([name]) => name !== 'pkg-020')
    .map(([name, version]): [string, string] => (name === 'lodash' ? [name, '4.17.21'] : name === 'pkg-010' ? [name, '1.0.1'] : [name, version])),
  ['added-a', '2.0.0'], ['added-b', '0.1.0'],
];
const largeBundle = (packages: [string, string][]) => tarGz({ 'app.cdx.json': graphSbom(packages), 'crypto.cbom.json': cbom('cyclonedx-spec__valid-cryptography-full-1.6.json') });

/** Rows a survey's analysis stored: its content rows and the removed keys of its layers. */
const rowsWritten = (t: T, surveyId: string) => inObject(t, (state) => Number(state.sql.exec(
  'SELECT (SELECT count(*) FROM contents WHERE survey_id = ?1) + (SELECT count(*) FROM content_removals WHERE survey_id = ?1) AS n', surveyId,
).one().n));
const layersOf = (t: T) => inObject(t, (state) => state.sql.exec('SELECT survey_id, attempt, kind, base_survey_id, base_attempt FROM content_layers ORDER BY survey_id, kind').toArray());
/** Every kind of the subject's current contents, item by item. */
async function everyContent(t: T) {
  const out: Record<string, unknown> = {};
  for (const kind of ['component', 'crypto_asset', 'dependency', 'observation', 'crypto_finding', 'vuln_finding', 'runtime_finding']) {
    const page = await contentsOf(t.projectId, 'shop', kind);
    out[kind] = normalized({ total: page.total, items: page.items });
  }
  // The unfiltered listing's total too (every kind but the dependency graph).
  out.listed = (await (projectStub(env, t.projectId) as any).subjectContents({ subject: 'shop', offset: 0, limit: 1 })).total;
  return out;
}
/** The subject's scores and scored findings, as the scoring stored them. */
const scoresOf = (t: T) => inObject(t, (state) => normalized({
  scores: state.sql.exec('SELECT pqc, vuln, agility, findings FROM subject_scores WHERE subject = ?', 'shop').toArray(),
  findings: state.sql.exec('SELECT id, axis, finding_key, item_key, penalty, detail FROM scored_findings WHERE subject = ? ORDER BY id', 'shop').toArray(),
}));

describe('a bundle with 1% of its components changed writes what changed', () => {
  let inc: T;
  let full: T;
  let first: any;
  let changed: any;
  let changedFull: any;
  let changedBundle: Uint8Array;

  beforeAll(async () => {
    [inc, full] = [await dataTenant('resurvey-onepct'), await dataTenant('resurvey-onepct-full')];
    tenants.push(inc, full);
    const before = await largeBundle(LARGE);
    changedBundle = await largeBundle(CHANGED);
    first = await survey(inc, before);
    await drainPurges(inc.projectId);
    changed = await survey(inc, changedBundle);
    await drainPurges(inc.projectId);
    await survey(full, before, 'full');
    await drainPurges(full.projectId);
    changedFull = await survey(full, changedBundle, 'full');
    await drainPurges(full.projectId);
    await settleScoring(inc);
    await settleScoring(full);
  }, 180_000);

  it('stores at most 10% of the rows the first survey stored, as layers over its rows, which stay', async () => {
    const firstRows = await rowsWritten(inc, first.id);
    const changedRows = await rowsWritten(inc, changed.id);
    expect(firstRows).toBeGreaterThan(1_000);
    expect(changedRows).toBeGreaterThan(0);
    expect(changedRows).toBeLessThanOrEqual(0.1 * firstRows);
    // The full analysis of the same bundle stores a full set.
    expect(await rowsWritten(full, changedFull.id)).toBeGreaterThan(0.9 * firstRows);
    expect(await layersOf(full)).toEqual([]);
    expect(await layersOf(inc)).toEqual(['component', 'crypto_asset', 'dependency'].map((kind) => ({ survey_id: changed.id, attempt: 1, kind, base_survey_id: first.id, base_attempt: 1 })));
    expect(analyzeStep(changed).metadata.reused_from).toBeUndefined();
  });

  it('holds the same contents, counts and findings as the full analysis', async () => {
    expect(await everyContent(inc)).toEqual(await everyContent(full));
    const components = (await contentsOf(inc.projectId, 'shop', 'component')).items.map((i) => `${i.name}@${i.version}`);
    expect(components).toHaveLength(CHANGED.length);
    expect((await contentsOf(inc.projectId, 'shop', 'component')).total).toBe(CHANGED.length);
    expect(components).toEqual(expect.arrayContaining(['lodash@4.17.21', 'pkg-010@1.0.1', 'added-a@2.0.0']));
    expect(components).not.toContain('pkg-020@1.0.0');
    expect(bundleMetadata(changed)).toEqual(bundleMetadata(changedFull));
    expect(changed.message).toBe(changedFull.message);
  });

  it('its three reports equal those of the full analysis, entry by entry', async () => {
    const { left } = await expectSameReports(inc, changed, changedFull, full);
    expect(JSON.stringify(left.composition!.entries)).not.toContain('lodash@4.17.15');
  });

  it('its scores equal those of the full analysis', async () => {
    const scores = await scoresOf(inc);
    expect(scores.scores).toHaveLength(1);
    expect(scores.findings.length).toBeGreaterThan(0);
    expect(scores).toEqual(await scoresOf(full));
  });

  it('a base a layer stands on is never purged; an abandoned attempt\'s layer goes with its rows', async () => {
    const baseRows = await rowsWritten(inc, first.id);
    const held = await everyContent(inc);
    // An attempt that never finished, layered over the same base, with a row and a removed key of its own.
    await inObject(inc, (state) => {
      state.sql.exec("INSERT INTO content_layers VALUES (?, 9, 'component', ?, 1)", changed.id, first.id);
      state.sql.exec("INSERT INTO contents (survey_id, attempt, kind, key, purl, name, version, data) VALUES (?, 9, 'component', 'pkg:npm/x@1', 'pkg:npm/x@1', 'x', '1', '{}')", changed.id);
      state.sql.exec("INSERT INTO content_removals VALUES (?, 9, 'component', 'pkg:npm/ws@7.4.0')", changed.id);
      queuePurge(state, changed.id, 9, '*');
      // As a retention or a replaced pointer would: the base's own purge.
      queuePurge(state, first.id, 1, '*');
    });
    await drainPurges(inc.projectId);
    expect(await rowsWritten(inc, first.id)).toBe(baseRows);
    expect(await inObject(inc, (state) => state.sql.exec('SELECT count(*) AS n FROM contents WHERE survey_id = ? AND attempt = 9', changed.id).one().n)).toBe(0);
    expect((await layersOf(inc)).map((l: any) => l.attempt)).toEqual([1, 1, 1]);
    expect(await everyContent(inc)).toEqual(held);
  });

  it('a later change layers over the same base; a full set then replaces both, and the purges take them', async () => {
    const again = await survey(inc, await largeBundle(CHANGED.map(([name, version]) => (name === 'pkg-100' ? [name, '3.0.0'] : [name, version]))));
    await drainPurges(inc.projectId);
    // The first layer is gone (its pointers moved), the base it stood on stays under the new layer.
    expect(await rowsWritten(inc, changed.id)).toBe(0);
    expect((await layersOf(inc)).map((l: any) => [l.survey_id, l.base_survey_id])).toEqual([[again.id, first.id], [again.id, first.id], [again.id, first.id]]);
    expect(await rowsWritten(inc, first.id)).toBeGreaterThan(1_000);
    expect((await contentsOf(inc.projectId, 'shop', 'component')).items.map((i) => `${i.name}@${i.version}`)).toContain('pkg-100@3.0.0');

    const replaced = await survey(inc, changedBundle, 'full');
    await drainPurges(inc.projectId);
    expect(await layersOf(inc)).toEqual([]);
    expect(await rowsWritten(inc, first.id)).toBe(0);
    expect(await rowsWritten(inc, again.id)).toBe(0);
    expect(await inObject(inc, (state) => Number(state.sql.exec('SELECT count(*) AS n FROM content_removals').one().n))).toBe(0);
    expect(await everyContent(inc)).toEqual(await everyContent(full));
    expect(await allRows(inc)).toBe(await rowsWritten(inc, replaced.id));
  });

  it('a runtime survey of the subject layers nothing: it owns no kind a bundle lists as components', async () => {
    await survey(inc, await largeBundle(CHANGED.map(([name, version]) => (name === 'pkg-200' ? [name, '2.0.0'] : [name, version]))));
    await drainPurges(inc.projectId);
    const components = await contentsOf(inc.projectId, 'shop', 'component');
    const layers = await layersOf(inc);
    expect(layers).toHaveLength(3);
    const observation = JSON.stringify({ algorithm: 'AES', keySize: 256, library: 'jca' });
    const runtime = await analysed(inc, await tarGz({ 'runtime/jca.jsonl': observation }), { jobType: 'RUNTIME_SURVEY', target: 'shop' });
    await drainPurges(inc.projectId);
    expect((await getJob(inc, runtime.surveyId)).status).toBe('COMPLETED');
    expect(await layersOf(inc)).toEqual(layers);
    expect(await inObject(inc, (state) => Number(state.sql.exec('SELECT count(*) AS n FROM content_removals WHERE survey_id = ?', runtime.surveyId).one().n))).toBe(0);
    expect(await contentsOf(inc.projectId, 'shop', 'component')).toEqual(components);
    expect((await contentsOf(inc.projectId, 'shop', 'observation')).total).toBe(1);
  });
});

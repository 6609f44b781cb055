// CI outputs of a survey (issue 24: GET P/v1/survey/{surveyId}/ci): real fixture surveys (an SBOM
// matched against the OSV fixtures and a CBOM with source-line occurrences) read as SARIF, validated
// against the SARIF 2.1.0 schema (test/fixtures/schemas/SOURCES.md), as JUnit XML, parsed and checked
// for the elements GitLab reads, and as markdown; fingerprints stable across two surveys, a decision
// as a suppression, the 25,000 cap, and who may read them. Part of test/decisions.test.ts.
import { Validator } from '@cfworker/json-schema';
import { env } from 'cloudflare:workers';
import { SaxesParser } from 'saxes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OsvRecord } from '../../src/analysis/vulns/osv-types';
import { sarifLog, SARIF_MAX_GZIP_BYTES } from '../../src/ci/sarif';
import type { CiSurveyData } from '../../src/project/ci-findings';
import { projectStub } from '../../src/project/client';
import { importRecords } from '../../src/vulndb/import';
import kafka from '../fixtures/cbom/ibm-cbomkit__kafka-cbom.json?raw';
import sarifSchema from '../fixtures/schemas/sarif-2.1.0.json';
import { api, expectError, json } from '../helpers';
import { dataTenant } from '../data-plane';
import { addPerson, apiToken, uploadPass } from '../people';
import { analysed, letRendersFinish, letScoringFinish, P, sbom, settleScoring, startSurvey, tarGz } from '../pipeline';

const advisories = import.meta.glob('../fixtures/osv/*.json', { import: 'default', eager: true }) as Record<string, OsvRecord>;

type T = Awaited<ReturnType<typeof dataTenant>>;
const ci = (t: { projectId: string }, surveyId: string, query: string) => `${P(t.projectId)}/v1/survey/${surveyId}/ci?${query}`;

function validateSarif(log: unknown) {
  const validator = new Validator(sarifSchema as any, '2020-12', false);
  const result = validator.validate(log);
  expect(result.errors.slice(0, 3)).toEqual([]);
  expect(result.valid).toBe(true);
}

interface XmlElement { name: string; attributes: Record<string, string>; children: XmlElement[]; text: string }

/** Parses XML with saxes (a conforming, well-formed-checking parser): throws on anything not well-formed. */
function parseXml(xml: string): XmlElement {
  const parser = new SaxesParser();
  const stack: XmlElement[] = [];
  let root: XmlElement | null = null;
  parser.on('opentag', (tag) => {
    const element: XmlElement = { name: tag.name, attributes: tag.attributes as Record<string, string>, children: [], text: '' };
    if (stack.length) stack.at(-1)!.children.push(element);
    else root = element;
    stack.push(element);
  });
  parser.on('text', (text) => { if (stack.length) stack.at(-1)!.text += text; });
  parser.on('closetag', () => void stack.pop());
  parser.on('error', (error) => { throw error; });
  parser.write(xml).close();
  return root!;
}

/** What GitLab's JUnit reader and the common JUnit XSD need: numeric counts that add up, a name and classname on every testcase. */
function checkJunit(root: XmlElement) {
  expect(root.name).toBe('testsuites');
  let tests = 0;
  let failures = 0;
  for (const suite of root.children) {
    expect(suite.name).toBe('testsuite');
    expect(suite.attributes.name).toBeTruthy();
    const cases = suite.children.filter((c) => c.name === 'testcase');
    expect(Number(suite.attributes.tests)).toBe(cases.length);
    const failed = cases.filter((c) => c.children.some((x) => x.name === 'failure')).length;
    expect(Number(suite.attributes.failures)).toBe(failed);
    expect(Number(suite.attributes.skipped)).toBe(cases.filter((c) => c.children.some((x) => x.name === 'skipped')).length);
    for (const c of cases) {
      expect(c.attributes.name).toBeTruthy();
      expect(c.attributes.classname).toBeTruthy();
      expect(c.children.every((x) => ['failure', 'skipped', 'system-out'].includes(x.name))).toBe(true);
    }
    tests += cases.length;
    failures += failed;
  }
  expect(Number(root.attributes.tests)).toBe(tests);
  expect(Number(root.attributes.failures)).toBe(failures);
}

describe('ci outputs', () => {
  let t: T;
  let bundle: Uint8Array;
  let first: string;
  let second: string;
  const text = async (path: string, token: string) => {
    const res = await api(path, { token });
    expect(res.status, await res.clone().text()).toBe(200);
    return res.text();
  };

  beforeAll(async () => {
    await importRecords(env.DB, Object.values(advisories), 'test');
    t = await dataTenant('ci');
    bundle = await tarGz({ 'sbom.json': sbom('shop', [['lodash', '4.17.15'], ['ws', '7.4.0']]), 'cbom.json': kafka });
    first = (await analysed(t, bundle, { target: 'shop', tag: 'v1' })).surveyId;
    second = (await analysed(t, bundle, { target: 'shop', tag: 'v2' })).surveyId;
    await settleScoring(t);
  });

  afterAll(async () => {
    await letRendersFinish([t]);
    await letScoringFinish([t]);
  });

  it('write the findings as SARIF 2.1.0 valid against the schema: rules per classification rule and advisory, levels, file locations with lines', async () => {
    const res = await api(ci(t, first, 'format=sarif'), { token: t.token });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/sarif+json');
    const log = await json(res);
    validateSarif(log);
    const run = log.runs[0];
    expect(run.tool.driver).toMatchObject({ name: 'posture', informationUri: 'http://localhost' });
    expect(run.tool.driver.version).toMatch(/^\d+\.\d+\.\d+$/);
    const ruleIds = run.tool.driver.rules.map((r: any) => r.id);
    expect(new Set(ruleIds).size).toBe(ruleIds.length);
    expect(ruleIds.some((id: string) => id.startsWith('crypto/'))).toBe(true);
    expect(ruleIds.some((id: string) => /^(GHSA|CVE)-/.test(id))).toBe(true);
    for (const r of run.results) {
      expect(run.tool.driver.rules[r.ruleIndex].id).toBe(r.ruleId);
      expect(['error', 'warning', 'note']).toContain(r.level);
      const expected = { red: 'error', yellow: 'warning', transition: 'note', unclassified: 'note', critical: 'error', high: 'error', medium: 'warning', low: 'note', unknown: 'note' }[r.properties.section as string];
      expect(r.level).toBe(expected);
      expect(r.partialFingerprints['postureFinding/v1']).toMatch(/^[0-9a-f]{64}$/);
    }
    // Kafka's CBOM names source files and lines: those are physical locations, relative.
    const physical = run.results.flatMap((r: any) => r.locations.filter((l: any) => l.physicalLocation).map((l: any) => l.physicalLocation));
    expect(physical.length).toBeGreaterThan(0);
    expect(physical.some((p: any) => p.artifactLocation.uri.startsWith('clients/src/main/java/') && p.region?.startLine > 0)).toBe(true);
    expect(physical.every((p: any) => !p.artifactLocation.uri.startsWith('/'))).toBe(true);
    // A vulnerability names its package: a logical location.
    const lodash = run.results.find((r: any) => r.properties.report === 'composition' && r.properties.purl === 'pkg:npm/lodash@4.17.15');
    expect(lodash.locations[0].logicalLocations[0].name).toBe('pkg:npm/lodash@4.17.15');
    // GitHub code scanning refuses a result without a file: one the finding does not name is the document's.
    for (const r of run.results) expect(r.locations[0].physicalLocation.artifactLocation.uri).toMatch(/^[^/]\S*$/);
    expect(lodash.locations[0].physicalLocation.artifactLocation.uri).toBe('bom.json');
    const placed = JSON.parse(await text(ci(t, first, `format=sarif&path=${encodeURIComponent('build/sbom.cdx.json')}`), t.token));
    validateSarif(placed);
    const uris = (purl: string) => placed.runs[0].results.filter((r: any) => r.properties.purl === purl).map((r: any) => r.locations[0].physicalLocation.artifactLocation.uri);
    expect(new Set(uris('pkg:npm/lodash@4.17.15'))).toEqual(new Set(['build/sbom.cdx.json']));
    // Findings with files of their own keep them.
    expect(placed.runs[0].results.filter((r: any) => r.properties.report === 'pqc-inventory').every((r: any) => r.locations[0].physicalLocation.artifactLocation.uri.startsWith('clients/') || r.locations[0].physicalLocation.artifactLocation.uri.startsWith('metadata/'))).toBe(true);
    expect(run.results.some((r: any) => r.properties.section === 'green')).toBe(false);
    expect(run.invocations[0]).toMatchObject({ executionSuccessful: true });
    expect(run.invocations[0].toolExecutionNotifications).toBeUndefined();
  });

  it('keep the fingerprints stable across two surveys of the same bundle', async () => {
    const prints = async (surveyId: string) => {
      const log = JSON.parse(await text(ci(t, surveyId, 'format=sarif'), t.token));
      return log.runs[0].results.map((r: any) => `${r.ruleId} ${r.partialFingerprints['postureFinding/v1']}`).sort();
    };
    const a = await prints(first);
    expect(a.length).toBeGreaterThan(3);
    expect(new Set(a).size).toBe(a.length);
    expect(await prints(second)).toEqual(a);
  });

  it('write a suppressing decision as a SARIF suppression with its justification, and skip it in JUnit', async () => {
    const log = JSON.parse(await text(ci(t, second, 'format=sarif'), t.token));
    const target = log.runs[0].results.find((r: any) => r.properties.purl === 'pkg:npm/lodash@4.17.15');
    const res = await api(`${P(t.projectId)}/v1/decision`, {
      token: t.token,
      body: { finding: { type: 'vulnerability', advisory_id: target.ruleId, package: 'pkg:npm/lodash@4.17.15' }, state: 'not_affected', justification: 'code_not_reachable', detail: 'Only the template helpers are bundled.' },
    });
    expect(res.status, await res.clone().text()).toBe(201);
    const decision = await json(res);
    const after = JSON.parse(await text(ci(t, second, 'format=sarif'), t.token));
    validateSarif(after);
    const suppressed = after.runs[0].results.filter((r: any) => r.suppressions);
    expect(suppressed.map((r: any) => r.ruleId)).toEqual([target.ruleId]);
    expect(suppressed[0].suppressions).toEqual([{
      kind: 'external', status: 'accepted', justification: expect.stringMatching(/not affected: code not reachable: Only the template helpers are bundled\./),
      properties: { decision_id: decision.id, state: 'not_affected' },
    }]);
    const junit = parseXml(await text(ci(t, second, 'format=junit'), t.token));
    checkJunit(junit);
    const xml = await text(ci(t, second, 'format=junit'), t.token);
    expect(xml).toContain(`decision not_affected, suppressed`);
    // A cryptographic decision (an algorithm, in one subject) suppresses its findings too: their JUnit group is skipped.
    const rsa = await api(`${P(t.projectId)}/v1/decision`, { token: t.token, body: { finding: { type: 'crypto', algorithm: 'RSA', subject: 'shop' }, state: 'false_positive', detail: 'Test keys only.' } });
    expect(rsa.status, await rsa.clone().text()).toBe(201);
    const withRsa = JSON.parse(await text(ci(t, second, 'format=sarif'), t.token));
    validateSarif(withRsa);
    const rsaResults = withRsa.runs[0].results.filter((r: any) => r.properties.report === 'pqc-inventory' && r.suppressions);
    expect(rsaResults.length).toBeGreaterThan(0);
    expect(rsaResults.every((r: any) => /^Decision [0-9a-f-]+: false positive: Test keys only\.$/.test(r.suppressions[0].justification))).toBe(true);
    const junitRsa = parseXml(await text(ci(t, second, 'format=junit'), t.token));
    checkJunit(junitRsa);
    const rsaCase = junitRsa.children[0]!.children.find((c) => c.attributes.name?.startsWith('RSA-2048'));
    expect(rsaCase?.children.map((x) => x.name)).toEqual(['skipped']);
  });

  it('write JUnit XML: a testsuite per report, failures for red and critical/high by default, for what --fail-on names when given', async () => {
    const res = await api(ci(t, first, 'format=junit'), { token: t.token });
    expect(res.headers.get('content-type')).toBe('application/xml; charset=utf-8');
    const root = parseXml(await res.text());
    checkJunit(root);
    expect(root.children.map((s) => s.attributes.name)).toEqual(['posture pqc-inventory shop', 'posture composition shop']);
    const failedClasses = root.children.flatMap((s) => s.children.filter((c) => c.children.some((x) => x.name === 'failure')).map((c) => c.attributes.classname));
    expect(failedClasses.length).toBeGreaterThan(0);
    expect(failedClasses.every((c) => /\.(red|critical|high)$/.test(c ?? ''))).toBe(true);
    // With a gate: only what it names fails, and the gate has a testsuite of its own.
    const gated = parseXml(await text(ci(t, first, 'format=junit&failOn=medium'), t.token));
    checkJunit(gated);
    const gatedFailures = gated.children.flatMap((s) => s.children.filter((c) => c.children.some((x) => x.name === 'failure')).map((c) => c.attributes.classname));
    expect(gatedFailures.every((c) => c === 'posture.composition.medium' || c === 'posture.gate')).toBe(true);
    expect(gated.children.at(-1)!.attributes.name).toBe('posture gate');
    await expectError(await api(ci(t, first, 'format=junit&failOn=purple'), { token: t.token }), 400, 'invalid_parameter');
    await expectError(await api(ci(t, first, 'format=pdf'), { token: t.token }), 400, 'invalid_parameter');
  });

  it('write the markdown summary: figures, what is new, top ranked fixes, links to the reports and their PDF', async () => {
    const md = await text(ci(t, second, 'format=markdown&failOn=red'), t.token);
    expect(md).toMatch(/^## Posture: shop @ v2/);
    expect(md).toContain('### Cryptography');
    expect(md).toContain('### Vulnerabilities');
    expect(md).toMatch(/\*\*Gate tripped\*\*: red \d+/);
    expect(md).toContain('### New since the previous survey');
    expect(md).toContain('Nothing new.');
    expect(md).toContain('### Top ranked fixes');
    const job = await json(await api(`${P(t.projectId)}/v1/job/${second}`, { token: t.token }));
    for (const step of job.steps.filter((s: any) => s.step_type === 'REPORT')) {
      expect(md).toContain(`/projects/${t.projectId}/reports/${step.id}`);
      expect(md).toContain(`http://localhost/api/v1/project/${t.projectId}/v1/report/${step.id}/export/pdf`);
    }
    const firstMd = await text(ci(t, first, 'format=markdown'), t.token);
    expect(firstMd).toContain('first survey');
  });

  it('let the upload pass that started the survey read it; another pass of the project gets 403, another project 404, an unfinished survey 409', async () => {
    const sarif = await api(ci(t, first, 'format=sarif'), { token: t.pass });
    expect(sarif.status, await sarif.clone().text()).toBe(200);
    const other = await uploadPass(t);
    await expectError(await api(ci(t, first, 'format=sarif'), { token: other }), 403, 'forbidden');
    // A person with project:view reads it (a Viewer); one without is refused, naming the permission.
    const viewer = await addPerson(t, 'Viewer', 'ci-viewer');
    expect((await api(ci(t, first, 'format=junit'), { token: viewer.token })).status).toBe(200);
    const outsider = await addPerson(t, { permissions: ['org:view'] }, 'ci-outsider');
    await expectError(await api(ci(t, first, 'format=junit'), { token: outsider.token }), 403, 'permission_denied', { permission: 'project:view' });
    // An API token with project:view reads it too.
    expect((await api(ci(t, first, 'format=markdown'), { token: await apiToken(t, ['project:view']) })).status).toBe(200);
    const elsewhere = await dataTenant('ci-other');
    await expectError(await api(ci(elsewhere, first, 'format=sarif'), { token: elsewhere.token }), 404, 'not_found');
    await expectError(await api(ci(t, first, 'format=sarif'), { token: elsewhere.pass }), 403, 'forbidden');
    const pending = await startSurvey(t, { target: 'shop' });
    await expectError(await api(ci(t, pending.surveyId, 'format=markdown'), { token: t.pass }), 409, 'conflict');
    await expectError(await api(ci(t, pending.surveyId, 'format=markdown'), { token: other }), 403, 'forbidden');
    await expectError(await api(ci(t, crypto.randomUUID(), 'format=markdown'), { token: t.token }), 404, 'not_found');
  });

  it('is in the OpenAPI document: any credential with project:view or an upload pass, its errors and three media types', async () => {
    const doc = await json(await api('/api/v1/openapi.json'));
    const op = doc.paths['/api/v1/project/{projectId}/v1/survey/{surveyId}/ci'].get;
    expect(op.operationId).toBe('getSurveyCiOutput');
    expect(op.security).toEqual([{ apiToken: [] }, { session: [] }, { uploadPass: [] }]);
    expect(op['x-permissions']).toEqual(['project:view']);
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403', '404', '409', '503']));
    expect(Object.keys(op.responses['200'].content).sort()).toEqual(['application/sarif+json', 'application/xml', 'text/markdown']);
    expect(op.parameters.map((p: any) => p.name)).toEqual(expect.arrayContaining(['format', 'failOn']));
  });

  it('keep at most the cap of results, the most severe first, and say what was left out', async () => {
    const data = await (projectStub(env, t.projectId) as any).ciSurvey({ surveyId: first, limit: 25_000, pass: null }) as CiSurveyData;
    const full = await sarifLog(data, { informationUri: 'http://localhost' });
    const total = (full as any).runs[0].results.length;
    expect(total).toBeGreaterThan(4);
    const capped = await sarifLog(data, { informationUri: 'http://localhost', maxResults: 3 }) as any;
    validateSarif(capped);
    expect(capped.runs[0].results).toHaveLength(3);
    expect(capped.runs[0].results.map((r: any) => r.level)).toEqual((full as any).runs[0].results.slice(0, 3).map((r: any) => r.level));
    expect(capped.runs[0].results.every((r: any) => r.level === 'error')).toBe(true);
    const [note] = capped.runs[0].invocations[0].toolExecutionNotifications;
    expect(note).toMatchObject({ level: 'warning', descriptor: { id: 'posture/results-capped' } });
    expect(note.message.text).toContain(`${total - 3} of ${total} findings were left out`);
    // The project object's own cap (the route asks for 25,000) is counted in the same note.
    const few = await (projectStub(env, t.projectId) as any).ciSurvey({ surveyId: first, limit: 2, pass: null }) as CiSurveyData;
    expect(few.findings).toHaveLength(2);
    expect(few.omitted).toBeGreaterThan(0);
    // Past the gzipped size limit the tail goes too.
    const small = await sarifLog(data, { informationUri: 'http://localhost', maxGzipBytes: 2_000 }) as any;
    expect(small.runs[0].results.length).toBeLessThan(total);
    expect(small.runs[0].invocations[0].toolExecutionNotifications.at(-1).descriptor.id).toBe('posture/size-capped');
    expect(SARIF_MAX_GZIP_BYTES).toBe(10 * 1024 * 1024);
  });
});

// VEX in and out (issue 23): the CISA use cases (CycloneDX) and OpenVEX documents imported into a
// project that surveyed the products they speak about, superseding by source, all or nothing, and a
// survey's vulnerabilities exported as CycloneDX and OpenVEX, valid against each schema and imported
// again with the same result. Part of test/decisions.test.ts.
import { Validator } from '@cfworker/json-schema';
import { env } from 'cloudflare:workers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OsvRecord } from '../../src/analysis/vulns/osv-types';
import { importRecords } from '../../src/vulndb/import';
import { validateCycloneDx } from '../cyclonedx-schema';
import { api, expectError, json } from '../helpers';
import { dataTenant } from '../data-plane';
import { activityRows, addPerson } from '../people';
import { analysed, getJob, letRendersFinish, letScoringFinish, P, settleScoring } from '../pipeline';
import openVexSchema from '../fixtures/vex/openvex/openvex_json_schema.json';

const advisories = import.meta.glob('../fixtures/osv/*.json', { import: 'default', eager: true }) as Record<string, OsvRecord>;
const cisa = import.meta.glob('../fixtures/vex/cyclonedx/*.json', { import: 'default', eager: true }) as Record<string, unknown>;
const openvex = import.meta.glob('../fixtures/vex/openvex/go-vex__*.json', { import: 'default', eager: true }) as Record<string, unknown>;
const fixture = (name: string) => cisa[`../fixtures/vex/cyclonedx/${name}.json`] ?? openvex[`../fixtures/vex/openvex/${name}.json`];

type T = Awaited<ReturnType<typeof dataTenant>>;
const LOG4J = 'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1';

/** A product's SBOM as its maker publishes it: the product (name, version, BOM serial number) and log4j-core 2.14.1 inside. */
function productSbom(name: string, version: string | null, serial?: string) {
  return JSON.stringify({
    bomFormat: 'CycloneDX', specVersion: '1.4', version: 1, ...(serial ? { serialNumber: `urn:uuid:${serial}` } : {}),
    metadata: { timestamp: '2022-01-13T00:00:00Z', component: { type: 'application', name, 'bom-ref': `product-${name}`, ...(version ? { version } : {}) } },
    components: [{ type: 'library', name: 'log4j-core', group: 'org.apache.logging.log4j', version: '2.14.1', purl: LOG4J, 'bom-ref': 'log4j' }],
  });
}

const importVex = (t: T, document: unknown, headers: Record<string, string> = {}) => api(`${P(t.projectId)}/v1/vex`, { token: t.token, body: document, headers });
async function imported(t: T, document: unknown) {
  const res = await importVex(t, document);
  expect(res.status, await res.clone().text()).toBe(200);
  return json(res);
}
const counts = (answer: any) => Object.fromEntries(['applied', 'already_in_place', 'superseded', 'not_matched'].map((k) => [k, answer[k]]).filter(([, n]) => n));

/** The current decision about log4shell for each subject (state, suppressed). */
async function log4shellBySubject(t: T) {
  const list = (await json(await api(`${P(t.projectId)}/v1/decision?advisory_id=CVE-2021-44228&limit=100`, { token: t.token }))).decisions as any[];
  return Object.fromEntries(list.map((d) => [d.finding.subject ?? '*', [d.state, d.suppressed]]));
}

async function compositionReport(t: T, surveyId: string) {
  return (await getJob(t, surveyId)).steps.find((s: any) => s.step_label === 'composition').id as string;
}

async function log4shellEntry(t: T, reportId: string) {
  for (const section of ['critical', 'high', 'medium', 'low', 'unknown']) {
    const page = await json(await api(`${P(t.projectId)}/v1/report/${reportId}/section/${section}?limit=1000`, { token: t.token }));
    const found = page.entries.find((e: any) => e.advisory_id === 'GHSA-jfh8-c2jp-5v3q');
    if (found) return found;
  }
  throw new Error('no log4shell entry');
}

describe('VEX import: the CISA use cases', () => {
  let t: T;
  const surveys: Record<string, string> = {};
  beforeAll(async () => {
    await importRecords(env.DB, Object.values(advisories), 'test');
    t = await dataTenant('cisa');
    const products: [string, string | null, string?][] = [
      ['ABC', '4.2', 'cbb2cd68-2857-43b8-a10b-e8c03d277d18'], ['DEF', '1.0'], ['GHI', '17.4'], ['XYZ', null], ['JKL', '5.1', 'e4c3eedc-4978-470c-ad02-6ffff63738ff'],
    ];
    for (const [name, version, serial] of products) surveys[name] = (await analysed(t, productSbom(name, version, serial))).surveyId;
    await settleScoring(t);
  });
  afterAll(async () => {
    await letScoringFinish([t]);
    await letRendersFinish([t]);
  });

  it('decides for the products at the versions each statement names, and says why the others match nothing here', async () => {
    // Each document in turn, as a customer would receive them; decisions accumulate (one source: the documents name no author).
    const expected: [string, Record<string, number>][] = [
      ['Case-1__vex-not_affected', { applied: 1 }], // ABC 4.2
      ['Case-1__vex-affected', { applied: 1 }], // DEF 1.0
      ['Case-1__vex-fixed', { not_matched: 1 }], // DEF 1.1: the subject is at 1.0
      ['Case-1__vex-under_investigation', { applied: 1 }], // GHI 17.4
      ['Case-5__vex', { applied: 1 }], // XYZ, every version
      ['Case-6__vex', { applied: 1, not_matched: 1 }], // ABC: affected in other versions; not affected in 4.2 (in other words than Case 1)
      ['Case-7__vex', { applied: 1, already_in_place: 1, not_matched: 3 }], // BOM-links: JKL 5.1 resolved; ABC 4.2 as before
    ];
    for (const [name, outcome] of expected) expect([name, counts(await imported(t, fixture(name)))]).toEqual([name, outcome]);
    expect(await log4shellBySubject(t)).toEqual({
      ABC: ['not_affected', true], DEF: ['exploitable', false], GHI: ['in_triage', false], XYZ: ['in_triage', false], JKL: ['resolved', true],
    });
    const fixed = await imported(t, fixture('Case-1__vex-fixed'));
    expect(fixed.results).toEqual([{ statement: 0, vulnerability: 'CVE-2021-44228', product: 'product-DEF', outcome: 'not_matched', reason: expect.stringMatching(/other versions of product-DEF.*DEF 1\.0/) }]);
    const case7 = await imported(t, fixture('Case-7__vex'));
    expect(case7.results.filter((r: any) => r.outcome === 'not_matched').map((r: any) => [r.statement, r.product.split('#')[1]])).toEqual([[0, 'product-ABC'], [0, 'product-JKL'], [2, 'product-JKL']]);

    // The decisions keep the document as their source, and the suppressed findings leave the report's counts.
    const abc = (await json(await api(`${P(t.projectId)}/v1/decision?subject=ABC`, { token: t.token }))).decisions[0];
    expect(abc).toMatchObject({ version: 2, finding: { advisory_id: 'CVE-2021-44228', package: null, subject: 'ABC' }, justification: 'code_not_present', response: ['will_not_fix'] });
    expect(abc.source).toMatchObject({ format: 'cyclonedx', spec_version: '1.4', timestamp: '2022-03-03T00:00:00Z', statement: 1 });
    const entry = await log4shellEntry(t, await compositionReport(t, surveys.ABC!));
    expect(entry.decision).toMatchObject({ id: abc.id, state: 'not_affected', suppressed: true });
    expect((await log4shellEntry(t, await compositionReport(t, surveys.DEF!))).decision).toMatchObject({ state: 'exploitable', suppressed: false });
    expect((await json(await api(`${P(t.projectId)}/v1/report/${await compositionReport(t, surveys.JKL!)}/summary`, { token: t.token }))).headline.suppressed).toMatchObject({ findings: 1 });
    // Documents about advisories no survey matched, or products not surveyed here, change nothing.
    for (const name of ['Case-2__vex', 'Case-3__vex', 'Case-4__vex', 'Case-8__vex']) {
      const answer = await imported(t, fixture(name));
      expect([name, answer.applied, answer.not_matched + answer.already_in_place]).toEqual([name, 0, answer.results.length]);
    }
    expect(await log4shellBySubject(t)).toEqual({
      ABC: ['not_affected', true], DEF: ['exploitable', false], GHI: ['in_triage', false], XYZ: ['in_triage', false], JKL: ['resolved', true],
    });
    const [entry0] = await activityRows(t.orgId, 'vex.imported');
    expect(entry0).toMatchObject({ project_id: t.projectId, data: { format: 'cyclonedx', statements: 1, applied: 1 } });
  });
});

describe('VEX import: OpenVEX, sources, and documents that are not valid', () => {
  let t: T;
  let survey: string;
  const openVexDocument = (statements: unknown[], extra: Record<string, unknown> = {}) => ({
    '@context': 'https://openvex.dev/ns/v0.2.0', '@id': 'https://example.com/vex/shop-1', author: 'Shop Security <security@example.com>',
    timestamp: '2026-01-10T10:00:00Z', version: 1, statements, ...extra,
  });
  const log4shell = (status: string, more: Record<string, unknown> = {}) => ({ vulnerability: { name: 'CVE-2021-44228' }, products: [{ '@id': LOG4J }], status, ...more });

  beforeAll(async () => {
    await importRecords(env.DB, Object.values(advisories), 'test');
    t = await dataTenant('openvex');
    survey = (await analysed(t, productSbom('shop', '1.0'))).surveyId;
    await settleScoring(t);
  });
  afterAll(async () => {
    await letScoringFinish([t]);
    await letRendersFinish([t]);
  });

  it('reads OpenVEX statements about a package as decisions about it, and lets a later statement of the same author supersede', async () => {
    const first = await imported(t, openVexDocument([log4shell('not_affected', { justification: 'vulnerable_code_not_in_execute_path', impact_statement: 'JndiLookup is never reached.' })]));
    expect(first).toMatchObject({ format: 'openvex', spec_version: '0.2.0', source: { author: 'Shop Security <security@example.com>', document_id: 'https://example.com/vex/shop-1', version: 1 }, applied: 1 });
    const decision = (await json(await api(`${P(t.projectId)}/v1/decision/${first.results[0].decision_id}`, { token: t.token })));
    expect(decision).toMatchObject({
      state: 'not_affected', justification: 'code_not_reachable', detail: 'JndiLookup is never reached.', suppressed: true,
      finding: { type: 'vulnerability', advisory_id: 'CVE-2021-44228', package: 'pkg:maven/org.apache.logging.log4j/log4j-core', version: '2.14.1', subject: null },
    });
    expect((await log4shellEntry(t, await compositionReport(t, survey))).decision).toMatchObject({ id: decision.id, suppressed: true });
    // The same document again: in place. Version 2 of it says affected: a new version of the same decision.
    expect(counts(await imported(t, openVexDocument([log4shell('not_affected', { justification: 'vulnerable_code_not_in_execute_path', impact_statement: 'JndiLookup is never reached.' })])))).toEqual({ already_in_place: 1 });
    const second = await imported(t, openVexDocument([log4shell('affected', { action_statement: 'Upgrade to 2.17.1.' })], { version: 2, timestamp: '2026-01-09T00:00:00Z' }));
    expect(second.results[0]).toMatchObject({ outcome: 'applied', decision_id: decision.id });
    // Version 1 again (an older copy arriving late) is superseded; so is an older document of the same author.
    expect(counts(await imported(t, openVexDocument([log4shell('fixed')])))).toEqual({ superseded: 1 });
    expect(counts(await imported(t, openVexDocument([log4shell('fixed')], { '@id': 'https://example.com/vex/old', timestamp: '2025-01-01T00:00:00Z' })))).toEqual({ superseded: 1 });
    const history = (await json(await api(`${P(t.projectId)}/v1/decision/${decision.id}/history`, { token: t.token }))).versions;
    expect(history.map((v: any) => [v.version, v.state, v.detail])).toEqual([[2, 'exploitable', 'Upgrade to 2.17.1.'], [1, 'not_affected', 'JndiLookup is never reached.']]);
    // Another author's later statement is another decision; the one decided last applies.
    const other = await imported(t, openVexDocument([log4shell('fixed')], { author: 'Upstream', '@id': 'https://example.com/vex/upstream' }));
    expect(other.results[0].decision_id).not.toBe(decision.id);
    expect((await log4shellEntry(t, await compositionReport(t, survey))).decision).toMatchObject({ id: other.results[0].decision_id, state: 'resolved', suppressed: true });
  });

  it('writes many decisions from one document in one go, and rescores once', async () => {
    const statements = Array.from({ length: 60 }, (_, i) => ({
      id: 'CVE-2021-44228', analysis: { state: 'in_triage', detail: `range ${i}` },
      affects: [{ ref: 'pkg:maven/org.apache.logging.log4j/log4j-core', versions: [{ range: `vers:maven/>=2.0|!=2.${i}.99` }] }],
    }));
    const many = await imported(t, { bomFormat: 'CycloneDX', specVersion: '1.5', version: 1, metadata: { timestamp: '2026-02-01T00:00:00Z', supplier: { name: 'Many' } }, vulnerabilities: statements });
    expect(counts(many)).toEqual({ applied: 60 });
    expect(new Set(many.results.map((r: any) => r.decision_id)).size).toBe(60);
    const listed = await json(await api(`${P(t.projectId)}/v1/decision?limit=1`, { token: t.token }));
    expect(listed.decisions[0]).toMatchObject({ source: { author: 'Many', format: 'cyclonedx' }, finding: { version_range: expect.stringMatching(/^vers:maven\/>=2\.0\|!=2\.\d+\.99$/) } });
  });

  it('matches products and subcomponents by package URL, and says which match nothing here', async () => {
    const answer = await imported(t, fixture('go-vex__v0.2.0'));
    expect(counts(answer)).toEqual({ not_matched: 10 });
    expect(answer.results[0]).toMatchObject({ statement: 0, vulnerability: 'CVE-2023-1255', product: 'pkg:apk/alpine/libssl3@3.0.8-r3', reason: expect.stringMatching(/No subject of this project is the product pkg:oci\/alpine/) });
    // A subcomponent inside a product the project surveyed: the decision is the subject's.
    const inShop = await imported(t, openVexDocument([{ vulnerability: { name: 'GHSA-jfh8-c2jp-5v3q' }, products: [{ '@id': 'pkg:generic/shop@1.0', identifiers: { purl: 'pkg:generic/shop@1.0' }, subcomponents: [{ '@id': LOG4J }] }], status: 'under_investigation' }], { author: 'Shop' }));
    expect(inShop.results[0]).toMatchObject({ outcome: 'not_matched', reason: expect.stringMatching(/No subject .* pkg:generic\/shop@1.0/) });
    const byName = await imported(t, openVexDocument([{ vulnerability: { name: 'GHSA-jfh8-c2jp-5v3q' }, products: [{ '@id': 'shop', subcomponents: [{ '@id': LOG4J }] }], status: 'under_investigation' }], { author: 'Shop' }));
    expect(byName.results[0].outcome).toBe('applied');
    expect((await json(await api(`${P(t.projectId)}/v1/decision/${byName.results[0].decision_id}`, { token: t.token }))).finding).toMatchObject({ subject: 'shop', package: 'pkg:maven/org.apache.logging.log4j/log4j-core', version: '2.14.1' });
  });

  it('answers 400 naming the first problem of a document that is not valid, and applies none of it', async () => {
    const before = (await json(await api(`${P(t.projectId)}/v1/decision?limit=100`, { token: t.token }))).decisions.length;
    const bad = async (document: unknown, words: RegExp) => {
      const error = await expectError(await importVex(t, document), 400, 'invalid_request');
      expect(error.error).toMatch(words);
    };
    // The OpenVEX schema asks for the document's timestamp and version; this go-vex test document has neither.
    await bad(fixture('go-vex__v020-1.vex'), /schema.*(timestamp|version)/);
    await bad(openVexDocument([log4shell('not_affected')]), /statements\[0\]/);
    await bad(openVexDocument([log4shell('affected', { action_statement: 'Upgrade.' })], { '@context': 'https://openvex.dev/ns/v0.1.0' }), /0\.2\.0/);
    const cyclonedx = structuredClone(fixture('Case-7__vex')) as any;
    cyclonedx.vulnerabilities[2].analysis.state = 'ignored';
    await bad(cyclonedx, /vulnerabilities\[2\]\.analysis\.state/);
    cyclonedx.vulnerabilities[2].analysis.state = 'resolved';
    cyclonedx.vulnerabilities[3].affects[0].versions = [{ range: '5.1 and up' }];
    await bad(cyclonedx, /vulnerabilities\[3\]\.affects\[0\]\.versions\[0\]\.range/);
    await bad({ ...(fixture('Case-5__vex') as object), specVersion: '1.3' }, /specVersion/);
    await bad({ hello: 'world' }, /Not a VEX document/);
    const tooLarge = await api(`${P(t.projectId)}/v1/vex`, { token: t.token, body: openVexDocument([log4shell('fixed', { status_notes: 'x'.repeat(9 * 1024 * 1024) })]) });
    expect((await expectError(tooLarge, 400, 'invalid_request')).error).toMatch(/8 MiB/);
    expect((await json(await api(`${P(t.projectId)}/v1/decision?limit=100`, { token: t.token }))).decisions.length).toBe(before);
  });

  it('lets project:edit import and no one else; a repeated Idempotency-Key answers the first import once', async () => {
    const viewer = await addPerson(t, 'Viewer', 'viewer');
    await expectError(await api(`${P(t.projectId)}/v1/vex`, { token: viewer.token, body: fixture('Case-5__vex') }), 403, 'permission_denied');
    const other = await dataTenant('vex-other');
    await expectError(await api(`${P(t.projectId)}/v1/vex`, { token: other.token, body: fixture('Case-5__vex') }), 403, 'forbidden');
    const key = { 'idempotency-key': `vex-${crypto.randomUUID()}` };
    const document = openVexDocument([log4shell('under_investigation')], { author: 'Once', '@id': 'https://example.com/vex/once' });
    const first = await json(await importVex(t, document, key));
    const entries = (await activityRows(t.orgId, 'vex.imported')).length;
    expect(await json(await importVex(t, document, key))).toEqual(first);
    expect((await activityRows(t.orgId, 'vex.imported')).length).toBe(entries);
    await expectError(await importVex(t, { ...document, version: 2 }, key), 409, 'conflict');
  });
});

describe('VEX export', () => {
  let a: T;
  let b: T;
  let surveyA: string;
  let reportA: string;
  let reportB: string;
  const shop = () => productSbom('shop', '1.0').replace('"components":[', '"components":[{"type":"library","name":"lodash","version":"4.17.15","purl":"pkg:npm/lodash@4.17.15"},');
  const exported = async (t: T, reportId: string, format: string) => {
    const res = await api(`${P(t.projectId)}/v1/report/${reportId}/vex?format=${format}`, { token: t.token });
    expect(res.status, await res.clone().text()).toBe(200);
    return { document: await json(res), type: res.headers.get('content-type'), disposition: res.headers.get('content-disposition') };
  };
  const states = async (t: T, reportId: string) => {
    const { document } = await exported(t, reportId, 'cyclonedx');
    return document.vulnerabilities.map((v: any) => `${v.id} ${v.affects[0].ref} ${v.analysis.state}`).sort();
  };

  beforeAll(async () => {
    await importRecords(env.DB, Object.values(advisories), 'test');
    [a, b] = [await dataTenant('supplier'), await dataTenant('customer')];
    surveyA = (await analysed(a, shop())).surveyId;
    reportA = await compositionReport(a, surveyA);
    reportB = await compositionReport(b, (await analysed(b, shop())).surveyId);
    await settleScoring(a);
    await settleScoring(b);
  });
  afterAll(async () => {
    await letScoringFinish([a, b]);
    await letRendersFinish([a, b]);
  });

  it('writes every matched advisory with its decision, valid CycloneDX 1.6 and OpenVEX 0.2.0, and imported elsewhere it decides the same', async () => {
    const decide = (body: unknown) => api(`${P(a.projectId)}/v1/decision`, { token: a.token, body }).then((res) => expect(res.status).toBe(201));
    await decide({ finding: { type: 'vulnerability', advisory_id: 'CVE-2021-44228', package: LOG4J }, state: 'not_affected', justification: 'protected_by_mitigating_control', detail: 'JNDI lookups are off.', response: ['workaround_available'] });
    await decide({ finding: { type: 'vulnerability', advisory_id: 'GHSA-35jh-r3h4-6jhm', package: 'pkg:npm/lodash' }, state: 'exploitable', detail: 'Upgrade planned.' });
    await decide({ finding: { type: 'vulnerability', advisory_id: 'GHSA-29mw-wpgm-hmr9', subject: 'shop' }, state: 'false_positive' });
    await settleScoring(a);

    const cdx = await exported(a, reportA, 'cyclonedx');
    expect(cdx.type).toMatch(/application\/vnd\.cyclonedx\+json/);
    expect(cdx.disposition).toMatch(/vex\.cdx\.json/);
    validateCycloneDx(cdx.document);
    const entries = (await json(await api(`${P(a.projectId)}/v1/report/${reportA}/summary`, { token: a.token }))).headline;
    expect(cdx.document.vulnerabilities).toHaveLength(entries.findings + entries.suppressed.findings);
    expect(cdx.document.metadata.component).toMatchObject({ name: 'shop' });
    const log4shell = cdx.document.vulnerabilities.find((v: any) => v.id === 'GHSA-jfh8-c2jp-5v3q');
    expect(log4shell).toMatchObject({ analysis: { state: 'not_affected', justification: 'protected_by_mitigating_control', response: ['workaround_available'], detail: 'JNDI lookups are off.' }, affects: [{ ref: LOG4J }] });
    expect(log4shell.references).toEqual([{ id: 'CVE-2021-44228', source: { name: 'CVE' } }]);
    expect(cdx.document.vulnerabilities.filter((v: any) => v.analysis.state === 'in_triage').length).toBeGreaterThan(0);

    const ov = await exported(a, reportA, 'openvex');
    const validator = new Validator(openVexSchema as never, '2020-12', false);
    expect(validator.validate(ov.document).errors.slice(0, 3)).toEqual([]);
    expect(ov.document.statements.find((s: any) => s.vulnerability.name === 'GHSA-jfh8-c2jp-5v3q')).toMatchObject({
      status: 'not_affected', justification: 'inline_mitigations_already_exist', impact_statement: 'JNDI lookups are off.', products: [{ '@id': LOG4J }],
    });
    expect(ov.document.statements.find((s: any) => s.vulnerability.name === 'GHSA-35jh-r3h4-6jhm')).toMatchObject({ status: 'affected', action_statement: 'Upgrade planned.' });
    expect(ov.document.statements.find((s: any) => s.vulnerability.name === 'GHSA-29mw-wpgm-hmr9')).toMatchObject({ status: 'not_affected', impact_statement: expect.any(String) });

    // The customer surveyed the same subject: importing the supplier's CycloneDX VEX gives the same decisions.
    const answer = await imported(b, cdx.document);
    expect(answer.not_matched).toBe(0);
    await settleScoring(b);
    expect(await states(b, reportB)).toEqual(await states(a, reportA));
    // The same counts and suppressions; what the supplier had not decided arrives as its statement "in triage" (a decision here).
    const summaryOf = async (t: T, reportId: string) => (await json(await api(`${P(t.projectId)}/v1/report/${reportId}/summary`, { token: t.token }))).headline;
    const [headlineA, headlineB] = [await summaryOf(a, reportA), await summaryOf(b, reportB)];
    expect({ ...headlineB, undecided: null }).toEqual({ ...headlineA, undecided: null });
    expect(headlineB.undecided).toEqual({ findings: 0, new: 0 });
    expect(headlineA.undecided.findings).toBe(cdx.document.vulnerabilities.filter((v: any) => v.analysis.state === 'in_triage').length);

    await expectError(await api(`${P(a.projectId)}/v1/report/${crypto.randomUUID()}/vex`, { token: a.token }), 404, 'not_found');
    const pqcReport = (await getJob(a, surveyA)).steps.find((s: any) => s.step_label === 'pqc-inventory');
    await expectError(await api(`${P(a.projectId)}/v1/report/${pqcReport.id}/vex`, { token: a.token }), 400, 'invalid_request');
    await expectError(await api(`${P(a.projectId)}/v1/report/${reportA}/vex?format=spdx`, { token: a.token }), 400, 'invalid_parameter');
    await expectError(await api(`${P(a.projectId)}/v1/report/${reportA}/vex`, { token: b.token }), 403, 'forbidden');
  });
});

// The dashboard's triage pages (issue 23): the queue of undecided findings of real surveys, deciding
// from it exactly as the API does (a Viewer sees no form and is refused), decisions on report rows
// linking to a decision's history.
import { env } from 'cloudflare:workers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OsvRecord } from '../../src/analysis/vulns/osv-types';
import { importRecords } from '../../src/vulndb/import';
import mastercard from '../fixtures/cbom/mastercard-client-encryption-java__cbom.json?raw';
import { expectPage, page, signInThroughDashboard, submit, textOf, unescape } from '../dashboard';
import { api, json } from '../helpers';
import { dataTenant } from '../data-plane';
import { activityRows, addPerson } from '../people';
import { analysed, getJob, letRendersFinish, letScoringFinish, P, sbom, settleScoring } from '../pipeline';

const advisories = import.meta.glob('../fixtures/osv/*.json', { import: 'default', eager: true }) as Record<string, OsvRecord>;

type T = Awaited<ReturnType<typeof dataTenant>>;
let t: T;
let owner: string;
let viewer: string;
let shopSurvey: string;
const pages = (rest = '') => `/projects/${t.projectId}${rest}`;
const read = async (path: string) => json(await api(path, { token: t.token }));

beforeAll(async () => {
  await importRecords(env.DB, Object.values(advisories), 'test');
  t = await dataTenant('dash-triage');
  shopSurvey = (await analysed(t, sbom('shop', [['lodash', '4.17.15']]))).surveyId;
  await analysed(t, mastercard, { target: 'cards' });
  await settleScoring(t);
  owner = await signInThroughDashboard(t.user.email);
  viewer = await signInThroughDashboard((await addPerson(t, 'Viewer', 'dash-triage-viewer')).user.email);
}, 90_000);

afterAll(async () => {
  await letScoringFinish([t]);
  await letRendersFinish([t]);
});

describe('the triage queue', () => {
  it('lists the undecided findings the API lists, with a form to decide each, linked from the navigation', async () => {
    const queue = await read(`${P(t.projectId)}/v1/triage?limit=50`);
    const html = await expectPage(await page(pages('/triage'), owner), 200, 'Triage');
    expect(html).toContain('aria-current="page">Triage</a>');
    const lodash = queue.findings.filter((f: any) => f.type === 'vulnerability');
    expect(lodash.length).toBeGreaterThan(0);
    for (const f of lodash) expect(html).toContain(f.advisory_id);
    expect((html.match(/action="[^"]*\/triage\/decide"/g) ?? []).length).toBe(queue.findings.length);
    expect(textOf(await expectPage(await page(pages('/triage?type=crypto&subject=cards'), owner), 200, 'Triage'))).not.toContain(lodash[0].advisory_id);
    expect(html).not.toMatch(/\sstyle=/);
  });

  it('decides from the queue as the API does, records it, and takes the finding out of the queue; a refused decision says why', async () => {
    const [finding] = (await read(`${P(t.projectId)}/v1/triage?type=vulnerability&limit=1`)).findings;
    const back = pages('/triage?type=vulnerability');
    const form = { type: 'vulnerability', subject: finding.subject, advisory_id: finding.advisory_id, package: finding.package, back, state: 'not_affected', justification: '', detail: '' };
    const refused = await submit(pages('/triage/decide'), owner, form);
    expect(refused.status).toBe(400);
    expect(textOf(await refused.text())).toMatch(/justification.*required/i);
    const done = await submit(pages('/triage/decide'), owner, { ...form, justification: 'code_not_reachable', detail: 'Not called from our code.' });
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe(`${back}&decided=1`);
    const [decision] = (await read(`${P(t.projectId)}/v1/decision?advisory_id=${finding.advisory_id}`)).decisions;
    expect(decision).toMatchObject({ state: 'not_affected', justification: 'code_not_reachable', detail: 'Not called from our code.', suppressed: true, finding: { subject: 'shop', version: finding.version } });
    expect((await activityRows(t.orgId, 'finding.decided')).map((r) => r.data.decisionId)).toContain(decision.id);
    const after = (await read(`${P(t.projectId)}/v1/triage?type=vulnerability&limit=100`)).findings;
    expect(after.some((f: any) => f.key === finding.key && f.subject === finding.subject)).toBe(false);
    const html = unescape(await expectPage(await page(`${back}&decided=1`, owner), 200, 'Triage'));
    expect(html).toContain('Decided.');
    expect(html).toContain(`href="/projects/${t.projectId}/decisions/${decision.id}"`);

    // The finding's report row shows the decision, linked to its history.
    const composition = (await getJob(t, shopSurvey)).steps.find((s: any) => s.step_label === 'composition').id;
    const section = (await read(`${P(t.projectId)}/v1/report/${composition}/search?query=${finding.advisory_id}`))[0].section;
    const report = unescape(await expectPage(await page(pages(`/reports/${composition}?section=${section}`), owner), 200, /composition/i));
    expect(textOf(report)).toContain('not affected · suppressed');
    expect(report).toContain(`href="/projects/${t.projectId}/decisions/${decision.id}"`);
    const history = textOf(await expectPage(await page(pages(`/decisions/${decision.id}`), owner), 200, /in shop/));
    expect(history).toContain('Not called from our code.');
    expect(history).toContain(t.user.email);
  });

  it('decides about one cryptographic asset from the queue, and the asset leaves it', async () => {
    const [asset] = (await read(`${P(t.projectId)}/v1/triage?type=crypto&subject=cards&limit=1`)).findings;
    expect(asset).toMatchObject({ type: 'crypto', subject: 'cards', key: expect.any(String) });
    const done = await submit(pages('/triage/decide'), owner, { type: 'crypto', subject: 'cards', asset: asset.key, back: pages('/triage'), state: 'false_positive', detail: 'A test key.' });
    expect(done.status).toBe(303);
    const left = (await read(`${P(t.projectId)}/v1/triage?type=crypto&subject=cards&limit=1000`)).findings;
    expect(left.some((f: any) => f.key === asset.key)).toBe(false);
  });

  it('shows the decision a ranked fix\'s finding is under, linked to its history', async () => {
    const [finding] = (await read(`${P(t.projectId)}/v1/triage?type=vulnerability&subject=shop&limit=1`)).findings;
    const res = await api(`${P(t.projectId)}/v1/decision`, { token: t.token, body: { finding: { type: 'vulnerability', advisory_id: finding.advisory_id }, state: 'exploitable', detail: 'Upgrade next sprint.' } });
    expect(res.status).toBe(201);
    const decision = await json(res);
    await settleScoring(t);
    const implicit = (await read(`${P(t.projectId)}/v1/portfolio`)).portfolios.find((p: any) => p.is_implicit).portfolio_id;
    const html = unescape(await expectPage(await page(pages(`/portfolios/${implicit}/fixes`), owner), 200, /Ranked fixes/));
    expect(html).toContain(`href="/projects/${t.projectId}/decisions/${decision.id}"`);
    expect(textOf(html)).toContain('exploitable');
  });

  it('shows a Viewer the queue without forms and refuses their decision', async () => {
    const html = await expectPage(await page(pages('/triage'), viewer), 200, 'Triage');
    expect(html).not.toContain('/triage/decide');
    expect(textOf(html)).toContain('Deciding needs the project:edit permission');
    const [finding] = (await read(`${P(t.projectId)}/v1/triage?limit=1`)).findings;
    const forged = await submit(pages('/triage/decide'), viewer, { type: finding.type, subject: finding.subject, asset: finding.key, advisory_id: finding.advisory_id ?? '', state: 'resolved' });
    expect(forged.status).toBe(403);
    expect((await read(`${P(t.projectId)}/v1/decision?state=resolved`)).decisions).toEqual([]);
  });
});

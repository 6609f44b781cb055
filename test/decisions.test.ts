// Decisions about findings through the API (issue 23: P/v1/decision): versions never overwritten, the
// rules of a decision answered as 400s, Idempotency-Key, the activity log, permissions, and isolation
// between projects and organizations.
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OsvRecord } from '../src/analysis/vulns/osv-types';
import { importRecords } from '../src/vulndb/import';
import { projectStub } from '../src/project/client';
import mastercard from './fixtures/cbom/mastercard-client-encryption-java__cbom.json?raw';
import { api, expectError, json } from './helpers';
import { dataTenant, provisioned } from './data-plane';
import { activityRows, addPerson, addProject, apiToken } from './people';
import { analysed, deliver, getJob, letRendersFinish, letScoringFinish, P, sbom, settleScoring } from './pipeline';

const advisories = import.meta.glob('./fixtures/osv/*.json', { import: 'default', eager: true }) as Record<string, OsvRecord>;

type T = Awaited<ReturnType<typeof dataTenant>>;
const path = (t: { projectId: string }, rest = '') => `${P(t.projectId)}/v1/decision${rest}`;
const log4j = { type: 'vulnerability', advisory_id: 'CVE-2021-44228', package: 'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1' };
const notAffected = { finding: log4j, state: 'not_affected', justification: 'code_not_reachable', detail: 'JndiLookup is removed from our build.' };

async function runSql(projectId: string, query: string, ...params: unknown[]) {
  await runInDurableObject(projectStub(env, projectId), (_i, state) => state.storage.sql.exec(query, ...params).toArray());
}

async function decide(t: T, body: unknown, headers: Record<string, string> = {}) {
  const res = await api(path(t), { token: t.token, body, headers });
  expect(res.status, await res.clone().text()).toBe(201);
  return json(res);
}

describe('decisions', () => {
  it('record a decision as version 1, its scope normalised, its decider named, its change in the activity log', async () => {
    const t = await dataTenant('decide');
    const decision = await decide(t, notAffected);
    expect(decision).toMatchObject({
      version: 1, state: 'not_affected', justification: 'code_not_reachable', response: [], detail: 'JndiLookup is removed from our build.', expires: null, suppressed: true, source: null,
      finding: { type: 'vulnerability', advisory_id: 'CVE-2021-44228', package: 'pkg:maven/org.apache.logging.log4j/log4j-core', version: '2.14.1', version_range: null, subject: null },
      decided_by: { id: t.user.id, email: t.user.email, kind: "session" },
    });
    expect(await json(await api(path(t, `/${decision.id}`), { token: t.token }))).toEqual(decision);
    const [entry] = await activityRows(t.orgId, 'finding.decided');
    expect(entry).toMatchObject({ project_id: t.projectId, data: { decisionId: decision.id, version: 1, state: 'not_affected', finding: decision.finding } });
  });

  it('keep every change as a new version: update, withdraw, history newest first; a withdrawn one is listed only when asked for', async () => {
    const t = await dataTenant('versions');
    const first = await decide(t, { finding: { type: 'crypto', algorithm: 'RSA', subject: 'shop' }, state: 'in_triage' });
    const put = await api(path(t, `/${first.id}`), { token: t.token, method: 'PUT', body: { state: 'exploitable', response: ['will_not_fix'], detail: 'HSM firmware ships in June', expires: '2099-06-30' } });
    expect(put.status).toBe(200);
    const second = await json(put);
    expect(second).toMatchObject({ id: first.id, version: 2, state: 'exploitable', expires: '2099-06-30', suppressed: true, finding: first.finding });
    expect((await api(path(t, `/${first.id}`), { token: t.token, method: 'DELETE' })).status).toBe(204);
    // A second withdrawal changes nothing: no version, no activity entry.
    expect((await api(path(t, `/${first.id}`), { token: t.token, method: 'DELETE' })).status).toBe(204);
    const history = await json(await api(path(t, `/${first.id}/history`), { token: t.token }));
    expect(history.versions.map((v: any) => [v.version, v.state, v.suppressed])).toEqual([[3, 'withdrawn', false], [2, 'exploitable', true], [1, 'in_triage', false]]);
    expect(history.versions[1]).toEqual(second);
    expect((await json(await api(path(t, `/${first.id}`), { token: t.token }))).state).toBe('withdrawn');
    expect((await json(await api(path(t), { token: t.token }))).decisions).toEqual([]);
    expect((await json(await api(path(t, '?state=withdrawn'), { token: t.token }))).decisions.map((d: any) => d.id)).toEqual([first.id]);
    await expectError(await api(path(t, `/${first.id}`), { token: t.token, method: 'PUT', body: { state: 'resolved' } }), 409, 'conflict');
    expect((await activityRows(t.orgId, 'finding.decided')).map((r) => [r.data.version, r.data.state])).toEqual([[1, 'in_triage'], [2, 'exploitable'], [3, 'withdrawn']]);
  });

  it('answer 400 naming the rule a decision breaks, and 404 for a decision that does not exist', async () => {
    const t = await dataTenant('rules');
    const bad = async (body: unknown, words: RegExp) => {
      const res = await api(path(t), { token: t.token, body });
      const error = await expectError(res, 400, 'invalid_request');
      expect(JSON.stringify(error)).toMatch(words);
    };
    await bad({ finding: log4j, state: 'not_affected' }, /justification/);
    await bad({ finding: log4j, state: 'exploitable', expires: '2099-01-01' }, /does not expire/);
    await bad({ finding: { type: 'crypto', algorithm: 'RSA' }, state: 'exploitable', expires: '2020-01-01' }, /future/);
    await bad({ finding: { type: 'crypto' }, state: 'in_triage' }, /algorithm/);
    await bad({ finding: { ...log4j, package: 'pkg:npm/a', version_range: 'between 1 and 2' }, state: 'in_triage' }, /vers:/);
    await bad({ finding: log4j, state: 'ignored' }, /state/);
    await bad({ finding: log4j, state: 'in_triage', priority: 1 }, /priority/);
    await bad({ finding: { type: 'license' }, state: 'in_triage' }, /type/);
    const missing = crypto.randomUUID();
    await expectError(await api(path(t, `/${missing}`), { token: t.token }), 404, 'not_found');
    await expectError(await api(path(t, `/${missing}/history`), { token: t.token }), 404, 'not_found');
    await expectError(await api(path(t, `/${missing}`), { token: t.token, method: 'PUT', body: { state: 'resolved' } }), 404, 'not_found');
    await expectError(await api(path(t, `/${missing}`), { token: t.token, method: 'DELETE' }), 404, 'not_found');
    await expectError(await api(path(t, `?after=${missing}`), { token: t.token }), 400, 'invalid_parameter');
    expect(await activityRows(t.orgId, 'finding.decided')).toEqual([]);
  });

  it('answer a repeat with the same Idempotency-Key with the same decision, once in the log; another body with it is 409', async () => {
    const t = await dataTenant('repeat');
    const key = { 'idempotency-key': `decide-${crypto.randomUUID()}` };
    const first = await decide(t, notAffected, key);
    expect(await decide(t, notAffected, key)).toEqual(first);
    await expectError(await api(path(t), { token: t.token, body: { ...notAffected, detail: 'other' }, headers: key }), 409, 'conflict');
    const again = { 'idempotency-key': `update-${crypto.randomUUID()}` };
    const update = () => api(path(t, `/${first.id}`), { token: t.token, method: 'PUT', body: { state: 'false_positive' }, headers: again });
    const [a, b] = [await json(await update()), await json(await update())];
    expect(a).toEqual(b);
    expect(a.version).toBe(2);
    expect((await activityRows(t.orgId, 'finding.decided')).length).toBe(2);
  });

  it('list current decisions newest first, filtered, a page at a time', async () => {
    const t = await dataTenant('list');
    const a = await decide(t, notAffected);
    const b = await decide(t, { finding: { type: 'vulnerability', advisory_id: 'GHSA-jfh8-c2jp-5v3q', package: 'pkg:npm/lodash', version_range: 'vers:npm/<4.17.21' }, state: 'in_triage' });
    const c = await decide(t, { finding: { type: 'crypto', asset: 'crypto/key/rsa-2048@1.2.840.113549.1.1.1' }, state: 'false_positive' });
    const list = async (query: string) => json(await api(path(t, query), { token: t.token }));
    const all = await list('');
    expect(all.decisions.map((d: any) => d.id)).toEqual([c.id, b.id, a.id]);
    expect(all.pagination).toEqual({ firstId: c.id, lastId: a.id, hasMore: false, total: 3 });
    const page = await list('?limit=2');
    expect(page.pagination).toEqual({ firstId: c.id, lastId: b.id, hasMore: true, total: 3 });
    expect((await list(`?limit=2&after=${b.id}`)).decisions.map((d: any) => d.id)).toEqual([a.id]);
    expect((await list('?type=crypto')).decisions.map((d: any) => d.id)).toEqual([c.id]);
    expect((await list('?state=in_triage')).decisions.map((d: any) => d.id)).toEqual([b.id]);
    expect((await list('?advisory_id=CVE-2021-44228')).decisions.map((d: any) => d.id)).toEqual([a.id]);
    expect((await list(`?package=${encodeURIComponent('pkg:npm/lodash')}`)).decisions.map((d: any) => d.id)).toEqual([b.id]);
    expect((await list(`?package=${encodeURIComponent('pkg:npm/lodash@4.17.20')}`)).decisions.map((d: any) => d.id)).toEqual([b.id]);
    await expectError(await api(path(t, '?state=ignored'), { token: t.token }), 400, 'invalid_parameter');
  });

  it('let project:view read and project:edit decide; never reach another project or organization', async () => {
    const t = await dataTenant('owner');
    const decision = await decide(t, notAffected);
    const viewer = await addPerson(t, 'Viewer', 'viewer');
    expect((await api(path(t, `/${decision.id}`), { token: viewer.token })).status).toBe(200);
    expect((await api(path(t), { token: viewer.token })).status).toBe(200);
    await expectError(await api(path(t), { token: viewer.token, body: notAffected }), 403, 'permission_denied');
    await expectError(await api(path(t, `/${decision.id}`), { token: viewer.token, method: 'DELETE' }), 403, 'permission_denied');
    const reader = await apiToken(t, ['project:view']);
    expect((await api(path(t, `/${decision.id}/history`), { token: reader })).status).toBe(200);
    await expectError(await api(path(t, `/${decision.id}`), { token: reader, method: 'PUT', body: { state: 'resolved' } }), 403, 'permission_denied');
    const editor = await apiToken(t, ['project:view', 'project:edit']);
    const byToken = await decide({ ...t, token: editor }, { finding: { type: 'crypto', algorithm: 'MD5' }, state: 'resolved' });
    expect(byToken.decided_by).toMatchObject({ id: t.user.id, kind: 'api_token' });

    // Another organization: its own project holds no such decision, and ours is out of its reach (403, as for every project route).
    const other = await dataTenant('other');
    await expectError(await api(path(other, `/${decision.id}`), { token: other.token }), 404, 'not_found');
    await expectError(await api(path(t, `/${decision.id}`), { token: other.token }), 403, 'forbidden');
    await expectError(await api(path(t), { token: other.token, body: notAffected }), 403, 'forbidden');
    // Another project of the same organization holds none of this project's decisions.
    const sibling = { projectId: await addProject(t) };
    await provisioned(sibling.projectId);
    const admin = await addPerson(t, 'Admin', 'admin');
    const there = (await json(await api(`${P(sibling.projectId)}/session`, { method: 'POST', token: admin.token }))).jwt;
    await expectError(await api(path(sibling, `/${decision.id}`), { token: there }), 404, 'not_found');
    expect((await json(await api(path(sibling), { token: there }))).decisions).toEqual([]);
    expect((await json(await api(path(other), { token: other.token }))).decisions).toEqual([]);
    expect(await activityRows(other.orgId, 'finding.decided')).toEqual([]);
  });
});

describe('what a decision changes', () => {
  let t: T;
  let implicit: string;
  let shopSurvey: string;
  const rank = async () => (await json(await api(`${P(t.projectId)}/v1/portfolio/${implicit}/rank`, { token: t.token }))).rows as any[];
  const score = async () => (await json(await api(`${P(t.projectId)}/v1/portfolio/${implicit}/state`, { token: t.token }))).score;
  const row = (rows: any[], key: string) => rows.find((r) => r.item_key === key);
  const decideAndScore = async (body: unknown) => {
    const decision = await decide(t, body);
    await settleScoring(t);
    return decision;
  };

  beforeAll(async () => {
    await importRecords(env.DB, Object.values(advisories), 'test');
    t = await dataTenant('suppress');
    shopSurvey = (await analysed(t, sbom('shop', [['lodash', '4.17.15'], ['ws', '7.4.0']]))).surveyId;
    await analysed(t, mastercard, { target: 'cards' });
    await settleScoring(t);
    implicit = (await json(await api(`${P(t.projectId)}/v1/portfolio`, { token: t.token }))).portfolios[0].portfolio_id;
  });
  afterAll(async () => {
    await letScoringFinish([t]);
    await letRendersFinish([t]);
  });

  it('takes a finding decided not affected out of the ranked fixes and the scores at once, and puts it back when withdrawn', async () => {
    const before = await rank();
    const lodash = row(before, 'pkg:npm/lodash');
    expect(lodash.findings.map((f: any) => f.finding_key).sort()).toEqual(['GHSA-29mw-wpgm-hmr9', 'GHSA-35jh-r3h4-6jhm', 'GHSA-p6mc-m468-83gw']);
    const vulnBefore = (await score()).axes.vuln.score;
    // Named by an alias (the advisory's CVE), for the package at the installed version.
    const record = Object.values(advisories).find((a) => a.id === 'GHSA-p6mc-m468-83gw')!;
    const cve = record.aliases!.find((a) => a.startsWith('CVE-'))!;
    const decision = await decideAndScore({ finding: { type: 'vulnerability', advisory_id: cve, package: 'pkg:npm/lodash@4.17.15' }, state: 'not_affected', justification: 'code_not_reachable' });
    const after = row(await rank(), 'pkg:npm/lodash');
    expect(after.findings.map((f: any) => f.finding_key).sort()).toEqual(['GHSA-29mw-wpgm-hmr9', 'GHSA-35jh-r3h4-6jhm']);
    expect(after.gain.overall).toBeLessThan(lodash.gain.overall);
    expect((await score()).axes.vuln.score).toBeGreaterThan(vulnBefore);
    // A simulation cannot fix what no longer counts.
    const simulate = await api(`${P(t.projectId)}/v1/portfolio/${implicit}/simulate`, { token: t.token, body: { fixes: [{ item_key: 'pkg:npm/lodash', finding_key: 'GHSA-p6mc-m468-83gw' }] } });
    await expectError(simulate, 400, 'invalid_request');

    expect((await api(path(t, `/${decision.id}`), { token: t.token, method: 'DELETE' })).status).toBe(204);
    await settleScoring(t);
    expect(row(await rank(), 'pkg:npm/lodash')).toEqual(lodash);
    expect((await score()).axes.vuln.score).toBe(vulnBefore);
  });

  it('leaves in_triage and exploitable findings counted, and only the version or range decided', async () => {
    const before = row(await rank(), 'pkg:npm/lodash');
    const triaged = await decideAndScore({ finding: { type: 'vulnerability', advisory_id: 'GHSA-29mw-wpgm-hmr9' }, state: 'in_triage' });
    await decideAndScore({ finding: { type: 'vulnerability', advisory_id: 'GHSA-35jh-r3h4-6jhm', package: 'pkg:npm/lodash', version: '4.17.14' }, state: 'false_positive' });
    await decideAndScore({ finding: { type: 'vulnerability', advisory_id: 'GHSA-p6mc-m468-83gw', package: 'pkg:npm/lodash', version_range: 'vers:npm/>=4.17.16|<5' }, state: 'resolved' });
    await decideAndScore({ finding: { type: 'vulnerability', advisory_id: 'GHSA-p6mc-m468-83gw', package: 'pkg:npm/lodash', subject: 'cards' }, state: 'resolved' });
    // Still counted; the ranked row shows the decision the finding is under.
    const after = row(await rank(), 'pkg:npm/lodash');
    expect(after.findings.find((f: any) => f.finding_key === 'GHSA-29mw-wpgm-hmr9').decision).toEqual({ id: triaged.id, state: 'in_triage' });
    expect({ ...after, findings: after.findings.map(({ decision: _d, ...f }: any) => f) }).toEqual(before);
    // A range that holds the installed version does suppress it.
    await decideAndScore({ finding: { type: 'vulnerability', advisory_id: 'GHSA-p6mc-m468-83gw', package: 'pkg:npm/lodash', version_range: 'vers:npm/>=4.17.0|<4.17.16' }, state: 'resolved' });
    expect(row(await rank(), 'pkg:npm/lodash').findings.map((f: any) => f.finding_key).sort()).toEqual(['GHSA-29mw-wpgm-hmr9', 'GHSA-35jh-r3h4-6jhm']);
  });

  it('takes an accepted algorithm out until its acceptance expires, in the one subject named', async () => {
    const rsa = (await rank()).find((r) => r.item_key.startsWith('algorithm:RSA'));
    expect(rsa.reach.subjects).toEqual(['cards']);
    const pqcBefore = (await score()).axes.pqc.score;
    await decideAndScore({ finding: { type: 'crypto', algorithm: 'RSA', subject: 'shop' }, state: 'exploitable', response: ['will_not_fix'], expires: '2099-06-30' });
    expect((await rank()).find((r) => r.item_key === rsa.item_key)).toEqual(rsa);
    const accepted = await decideAndScore({ finding: { type: 'crypto', algorithm: rsa.item_key.slice('algorithm:'.length).toLowerCase(), subject: 'cards' }, state: 'exploitable', response: ['will_not_fix'], expires: '2099-06-30', detail: 'HSM firmware ships in June' });
    expect((await rank()).find((r) => r.item_key === rsa.item_key)).toBeUndefined();
    expect((await score()).axes.pqc.score).toBeGreaterThan(pqcBefore);
    // Expired (as a stored acceptance is after its date): it counts again on the next scoring.
    await runSql(t.projectId, "UPDATE decisions SET expires = '2020-01-01' WHERE id = ?", accepted.id);
    await api(path(t, `/${accepted.id}`), { token: t.token }).then(async (res) => expect((await json(res)).suppressed).toBe(false));
    await decideAndScore({ finding: { type: 'crypto', asset: 'not-an-asset-of-cards' }, state: 'false_positive' });
    // Counted again, each finding showing the acceptance that ended.
    const again = (await rank()).find((r) => r.item_key === rsa.item_key);
    expect(again.findings.map((f: any) => f.decision)).toEqual(rsa.findings.map(() => ({ id: accepted.id, state: 'exploitable' })));
    expect({ ...again, findings: again.findings.map(({ decision: _d, ...f }: any) => f) }).toEqual(rsa);
  });

  it('marks report entries with the decision they fall under, counts what it suppresses apart, and a later survey\'s figures (the CLI gate) leave it out', async () => {
    const compositionOf = async (surveyId: string) => (await getJob(t, surveyId)).steps.find((s: any) => s.step_label === 'composition');
    const reportId = (await compositionOf(shopSurvey)).id;
    const report = (rest: string) => api(`${P(t.projectId)}/v1/report/${reportId}${rest}`, { token: t.token }).then((res) => json(res));
    const withdrawAll = async () => {
      for (const d of (await json(await api(path(t), { token: t.token }))).decisions) await api(path(t, `/${d.id}`), { token: t.token, method: 'DELETE' });
      await settleScoring(t);
    };
    const entryOf = async (advisory: string) => {
      for (const section of ['critical', 'high', 'medium', 'low', 'unknown']) {
        const found = (await report(`/section/${section}?limit=1000`)).entries.find((e: any) => e.advisory_id === advisory);
        if (found) return found;
      }
      throw new Error(`no entry for ${advisory}`);
    };
    await withdrawAll();
    const before = (await report('/summary')).headline;
    const found = await entryOf('GHSA-p6mc-m468-83gw');
    const severity = found.section as string;
    expect(found.decision).toBeUndefined();
    expect(before.suppressed).toBeUndefined();
    // The subject's first survey: every finding is new, and none is decided.
    expect(before.undecided).toEqual({ findings: before.findings, new: before.findings });

    const decision = await decideAndScore({ finding: { type: 'vulnerability', advisory_id: 'GHSA-p6mc-m468-83gw', package: 'pkg:npm/lodash' }, state: 'not_affected', justification: 'requires_configuration' });
    const after = (await report('/summary')).headline;
    expect(after.findings).toBe(before.findings - 1);
    expect(after.severities[severity]).toBe(before.severities[severity] - 1);
    expect(after.suppressed).toEqual({ findings: 1, severities: { ...Object.fromEntries(Object.keys(before.severities).map((k) => [k, 0])), [severity]: 1 } });
    expect(after.undecided).toEqual({ findings: before.findings - 1, new: before.findings - 1 });
    const page = await report(`/section/${severity}?limit=1000`);
    const marked = page.entries.filter((e: any) => e.decision);
    expect(marked.map((e: any) => [e.advisory_id, e.decision])).toEqual([['GHSA-p6mc-m468-83gw', {
      id: decision.id, state: 'not_affected', justification: 'requires_configuration', response: [], expires: null, suppressed: true,
    }]]);

    // A later survey: the finding arrives decided, and its step's figures (what --fail-on reads) leave it out.
    const later = await analysed(t, sbom('shop', [['lodash', '4.17.15'], ['ws', '7.4.0'], ['left-pad', '1.3.0']]));
    const figures = (await compositionOf(later.surveyId)).metadata.figures;
    expect(figures.severities[severity]).toBe(before.severities[severity] - 1);
    expect(figures.suppressed).toEqual(after.suppressed);
    // Its report says what is left to triage, and that none of it is new (left-pad brings no advisory).
    const laterReport = (await compositionOf(later.surveyId)).id;
    const laterHeadline = (await json(await api(`${P(t.projectId)}/v1/report/${laterReport}/summary`, { token: t.token }))).headline;
    expect(laterHeadline.undecided).toEqual({ findings: before.findings - 1, new: 0 });
    await settleScoring(t);

    await withdrawAll();
    expect((await report('/summary')).headline).toEqual(before);
    expect((await entryOf('GHSA-p6mc-m468-83gw')).decision).toBeUndefined();
  });

  it('lists the findings no decision covers as the triage queue, by subject, a page at a time', async () => {
    const queue = async (query = '') => json(await api(`${P(t.projectId)}/v1/triage${query}`, { token: t.token }));
    const all = await queue('?limit=1000');
    expect(all.next).toBeNull();
    const lodash = all.findings.filter((f: any) => f.subject === 'shop' && f.type === 'vulnerability' && f.package === 'pkg:npm/lodash@4.17.15');
    expect(lodash.map((f: any) => f.advisory_id).sort()).toEqual(['GHSA-29mw-wpgm-hmr9', 'GHSA-35jh-r3h4-6jhm', 'GHSA-p6mc-m468-83gw']);
    const crypto = all.findings.filter((f: any) => f.type === 'crypto');
    expect(crypto.length).toBeGreaterThan(0);
    expect(new Set(crypto.map((f: any) => f.subject))).toEqual(new Set(['cards']));
    // Paged: the same findings, in order, two at a time.
    const paged: any[] = [];
    for (let after: string | null = '', pages = 0; after !== null && pages < 500; pages++) {
      const page = await queue(`?limit=2${after ? `&after=${encodeURIComponent(after)}` : ''}`);
      paged.push(...page.findings);
      after = page.next;
    }
    expect(paged).toEqual(all.findings);
    expect((await queue('?type=crypto&limit=1000')).findings).toEqual(crypto);
    expect((await queue('?subject=shop&limit=1000')).findings).toEqual(all.findings.filter((f: any) => f.subject === 'shop'));

    // Decided findings leave the queue, whatever the state (in_triage too: someone is on it).
    const decision = await decideAndScore({ finding: { type: 'vulnerability', advisory_id: 'GHSA-29mw-wpgm-hmr9', package: 'pkg:npm/lodash' }, state: 'in_triage' });
    const rsa = crypto[0].algorithm;
    const accepted = await decideAndScore({ finding: { type: 'crypto', algorithm: rsa }, state: 'exploitable', expires: '2099-01-01' });
    const left = (await queue('?limit=1000')).findings;
    expect(left.some((f: any) => f.advisory_id === 'GHSA-29mw-wpgm-hmr9')).toBe(false);
    expect(left.some((f: any) => f.type === 'crypto' && f.algorithm === rsa)).toBe(false);
    expect(left.length).toBeLessThan(all.findings.length);
    for (const id of [decision.id, accepted.id]) await api(path(t, `/${id}`), { token: t.token, method: 'DELETE' });
    await settleScoring(t);
    expect((await queue('?limit=1000')).findings).toEqual(all.findings);
    await expectError(await api(`${P(t.projectId)}/v1/triage?after=not-a-cursor`, { token: t.token }), 400, 'invalid_parameter');
  });

  it('builds the reports of an unchanged re-survey again, rather than copying them, once a decision changed since', async () => {
    const composition = async (surveyId: string) => (await getJob(t, surveyId)).steps.find((s: any) => s.step_label === 'composition');
    const bundle = sbom('repeat', [['lodash', '4.17.15']]);
    const first = await composition((await analysed(t, bundle)).surveyId);
    // Nothing changed: the report is copied (the re-survey reuse of issue 22).
    expect((await composition((await analysed(t, bundle)).surveyId)).metadata.copied_from).toBe(first.id);
    await decideAndScore({ finding: { type: 'vulnerability', advisory_id: 'GHSA-p6mc-m468-83gw', subject: 'repeat' }, state: 'false_positive' });
    const third = await composition((await analysed(t, bundle)).surveyId);
    expect(third.metadata.copied_from).toBeUndefined();
    expect(third.metadata.figures.suppressed).toMatchObject({ findings: 1 });
    expect(third.metadata.figures.findings).toBe(first.metadata.figures.findings - 1);
    await settleScoring(t);
  });

  it('records an acceptance that expired in the activity log on the next daily run, once, and counts it again (last: it runs the day in 2099)', async () => {
    const rsa = (await rank()).find((r) => r.item_key.startsWith('algorithm:RSA'));
    const accepted = await decideAndScore({ finding: { type: 'crypto', algorithm: rsa.item_key.slice('algorithm:'.length) }, state: 'exploitable', response: ['will_not_fix'], expires: '2099-06-30' });
    expect((await rank()).find((r) => r.item_key === rsa.item_key)).toBeUndefined();
    const daily = async (at: string) => {
      const { id, result } = await deliver({ kind: 'rematch', projectId: t.projectId, snapshotAt: at }, { queue: 'posture-scoring' });
      expect(result.explicitAcks).toEqual([id]);
      await settleScoring(t);
    };
    await daily('2099-06-29T00:05:00.000Z');
    expect(await activityRows(t.orgId, 'finding.acceptance_expired')).toEqual([]);
    await daily('2099-07-01T00:05:00.000Z');
    await daily('2099-07-02T00:05:00.000Z');
    const entries = await activityRows(t.orgId, 'finding.acceptance_expired');
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ project_id: t.projectId, actor_kind: 'system', data: { decisionId: accepted.id, expires: '2099-06-30', state: 'exploitable', finding: { type: 'crypto' } } });
    // The day's snapshot scored as of 2099-07-01 on: the algorithm counts again.
    expect((await rank()).find((r) => r.item_key === rsa.item_key)).toBeDefined();
  });
});

describe('vex', async () => void (await import('./decisions/vex')));

describe('ci', async () => void (await import('./decisions/ci')));

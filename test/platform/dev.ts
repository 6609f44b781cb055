// Local development routes: only on an instance with a DEV_SECRET, and only with it.
import { env, exports } from 'cloudflare:workers';
import { strToU8, zipSync } from 'fflate';
import { runInDurableObject } from 'cloudflare:test';
import { afterAll, describe, expect, it } from 'vitest';
import { app } from '../../src/app';
import { DEMO } from '../../src/routes/dev';
import { cookieOf, DASHBOARD, expectPage, page, post } from '../dashboard';
import { dataTenant } from '../data-plane';
import { api, expectError, json, uniqueEmail } from '../helpers';
import { projectStub } from '../../src/project/client';
import trivy from '../fixtures/cbom/aquasecurity-trivy__crypto-image.cbom.json?raw';
import { analysed, letRendersFinish, letScoringFinish, P, storedRowCount } from '../pipeline';

const dev = (path: string, body: unknown = {}, secret: string | null = env.DEV_SECRET!) =>
  api(path, { body, headers: secret === null ? {} : { 'x-dev-secret': secret } });

const surveyed: { projectId: string; token: string }[] = [];
afterAll(async () => {
  await letRendersFinish(surveyed);
  await letScoringFinish(surveyed);
});

describe('local development routes', () => {
  it('uses the fixed test secret, not a local .dev.vars', () => {
    expect(env.DEV_SECRET).toBe('test-dev-secret');
  });

  it('seeds the demo organization, project and admin once', async () => {
    const first = await json(await dev('/api/v1/dev/seed'));
    expect(first).toEqual({ orgId: DEMO.orgId, projectId: DEMO.projectId, adminEmail: DEMO.adminEmail, created: true });
    expect((await json(await dev('/api/v1/dev/seed'))).created).toBe(false);
    const session = await json(await dev('/api/v1/dev/session'));
    expect(session.user.email).toBe(DEMO.adminEmail);
    const project = await json(await api(`/api/v1/project/${DEMO.projectId}`, { token: session.jwt }));
    expect(project).toMatchObject({ id: DEMO.projectId, demoProject: true, orgId: DEMO.orgId });
  });

  it('mints a session for any email, signing an unknown person up', async () => {
    const email = uniqueEmail('dev');
    const session = await json(await dev('/api/v1/dev/session', { email }));
    expect(session.user.email).toBe(email);
    expect(session.orgId).not.toBe(DEMO.orgId);
  });

  it('answers 401 without the secret or with a wrong one', async () => {
    await expectError(await dev('/api/v1/dev/session', {}, null), 401, 'unauthorized');
    await expectError(await dev('/api/v1/dev/session', {}, 'wrong'), 401, 'unauthorized');
    await expectError(await dev('/api/v1/dev/sign-in-link', {}, null), 401, 'unauthorized');
    await expectError(await dev('/api/v1/dev/sign-in-link', {}, 'wrong'), 401, 'unauthorized');
  });

  describe('a one-time dashboard sign-in link (npm run dev, npm run dev:link)', () => {
    const tokenOf = (url: string) => decodeURIComponent(new URL(url).hash.slice('#token='.length));
    const linkRow = (token: string) => {
      const { jti } = JSON.parse(atob(token.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/'))) as { jti: string };
      return env.DB.prepare('SELECT email, created_at, expires_at, used_at FROM sign_in_links WHERE jti = ?').bind(jti)
        .first<{ email: string; created_at: string; expires_at: string; used_at: string | null }>();
    };

    it('is recorded as an emailed link is: the demo admin by default, valid 15 minutes, on the dashboard address', async () => {
      await dev('/api/v1/dev/seed');
      const before = Date.now();
      const link = await json(await dev('/api/v1/dev/sign-in-link'));
      expect(link.email).toBe(DEMO.adminEmail);
      expect(link.url.startsWith(`${DASHBOARD}/sign-in#token=`)).toBe(true);
      const row = await linkRow(tokenOf(link.url));
      expect(row).toMatchObject({ email: DEMO.adminEmail, used_at: null });
      expect((Date.parse(row!.expires_at) - Date.parse(row!.created_at)) / 60_000).toBe(15);
      // The token stops working when the row does (to the second).
      expect(Date.parse(link.expiresAt)).toBe(Math.floor(Date.parse(row!.expires_at) / 1000) * 1000);
      expect(Date.parse(row!.created_at)).toBeGreaterThanOrEqual(before - 1000);
    });

    it('signs in once through the dashboard, into the demo project; used again it does not work', async () => {
      const link = await json(await dev('/api/v1/dev/sign-in-link'));
      const token = tokenOf(link.url);
      const first = await post('/session', { token });
      expect(first.status).toBe(303);
      const cookie = cookieOf(first)!.split(';')[0]!;
      // The dashboard opens on the demo project.
      const home = await page('/', cookie);
      expect([home.status, home.headers.get('location')]).toEqual([303, `/projects/${DEMO.projectId}`]);
      expect(await expectPage(await page('/profile', cookie), 200, /.+/)).toContain(DEMO.projectName);
      expect((await linkRow(token))!.used_at).not.toBeNull();
      const again = await post('/session', { token });
      expect(again.status).toBe(400);
      expect(await again.text()).toContain('This sign-in link does not work');
      expect(cookieOf(again)).toBeNull();
      // The API's own exchange refuses it too.
      await expectError(await api('/api/v1/auth/sign-in/exchange', { body: { token } }), 401, 'token_revoked');
    });

    it('signs another person up when used, as an emailed link does', async () => {
      const email = uniqueEmail('dev-link');
      const link = await json(await dev('/api/v1/dev/sign-in-link', { email: email.toUpperCase() }));
      expect(link.email).toBe(email.toLowerCase());
      const res = await api('/api/v1/auth/sign-in/exchange', { body: { token: tokenOf(link.url) } });
      expect(res.status).toBe(200);
      expect((await json(res)).user.email).toBe(email.toLowerCase());
    });

    it('answers 400 for an address that is not one', async () => {
      await expectError(await dev('/api/v1/dev/sign-in-link', { email: 'not-an-address' }), 400, 'invalid_request');
    });
  });

  it('seeds synthetic analysis results for bench:scoring, the same again for the same parameters', async () => {
    const t = await dataTenant('bench-seed');
    const path = `/api/v1/dev/bench-seed?projectId=${t.projectId}&subjects=4&findings=90&components=30&packages=20&slice=3&vulndb=false&score=false`;
    const first = await json(await dev(path));
    expect(first).toMatchObject({ subjects: 4, prefix: 'bench-app', rescore: null });
    expect(first.vuln_findings + first.crypto_findings).toBe(90);
    const { subjects } = await json(await api(`${P(t.projectId)}/v1/subject`, { token: t.token }));
    expect(subjects.map((s: { name: string }) => s.name)).toEqual(['bench-app-0001', 'bench-app-0002', 'bench-app-0003', 'bench-app-0004']);
    const content = async () => (await json(await api(`${P(t.projectId)}/v1/subject/bench-app-0002/content?limit=1000`, { token: t.token }))).items as { kind: string; data: any }[];
    const items = await content();
    const vulns = items.filter((i) => i.kind === 'vuln_finding');
    const crypto = items.filter((i) => i.kind === 'crypto_finding');
    expect(vulns.length).toBeGreaterThan(0);
    expect(crypto.length).toBeGreaterThan(0);
    // Shaped as the analysis writes them (src/analysis/findings.ts), with the staged row's source.
    for (const v of vulns) {
      expect(Object.keys(v.data).sort()).toEqual(['advisory_id', 'aliases', 'component_key', 'ecosystem', 'explanation', 'fix_version', 'fixed_version', 'modified',
        'name', 'package', 'published', 'purl', 'severity', 'source', 'summary', 'version']);
    }
    for (const c of crypto) expect(c.data).toMatchObject({ section: expect.any(String), key: expect.any(String), locations: expect.any(Array), provided_by: expect.toBeOneOf([null, expect.any(Object)]) });
    const again = await json(await dev(path));
    expect({ ...again, ms: 0, vulndb_ms: 0 }).toEqual({ ...first, ms: 0, vulndb_ms: 0 });
    expect(await content()).toEqual(items.map((i) => ({ ...i, survey_id: expect.any(String) })));
  });

  it('measures the floors of a survey: its content rows, and each report\'s entries, written again in one transaction each', async () => {
    const t = await dataTenant('survey-floor');
    surveyed.push(t);
    const survey = await analysed(t, trivy);
    const floor = await json(await dev(`/api/v1/dev/analysis-floor/survey?projectId=${t.projectId}&surveyId=${survey.surveyId}`));
    const entryCounts = await runInDurableObject(projectStub(env, t.projectId), (_instance, state) => state.storage.sql.exec<{ type: string; n: number }>(
      'SELECT r.type AS type, count(e.report_id) AS n FROM reports r LEFT JOIN report_entries e ON e.report_id = r.id WHERE r.survey_id = ? GROUP BY r.id ORDER BY r.id',
      survey.surveyId).toArray());
    expect(floor.contents.rows).toBe(await storedRowCount(t.projectId, survey.surveyId));
    expect(floor.contents.rows).toBeGreaterThan(20);
    expect(floor.reports.map((r: { type: string; rows: number }) => ({ type: r.type, n: r.rows }))).toEqual(entryCounts.map((r) => ({ type: r.type, n: r.n })));
    expect(entryCounts.find((r) => r.type === 'pqc-inventory')!.n).toBeGreaterThan(0);
    for (const ms of [floor.contents.ms, ...floor.reports.map((r: { ms: number }) => r.ms)]) expect(ms).toBeGreaterThanOrEqual(0);
    // Written and deleted again: nothing of the floor is left beside the survey's own rows.
    expect(await storedRowCount(t.projectId, 'bench-floor')).toBe(0);
    const leftEntries = await runInDurableObject(projectStub(env, t.projectId), (_instance, state) =>
      state.storage.sql.exec<{ n: number }>('SELECT count(*) AS n FROM report_entries WHERE report_id = ?', 'bench-floor').one().n);
    expect(leftEntries).toBe(0);
  });

  it('stages an OSV all.zip where the refresh stages it and imports it with the refresh\'s own import', async () => {
    const records = ['DEV-0001', 'DEV-0002', 'DEV-0003'].map((id, i) => ({
      id, modified: `2026-11-0${i + 1}T00:00:00Z`, affected: [{ package: { ecosystem: 'npm', name: `dev-stage-${i}` }, versions: ['1.0.0'] }],
    }));
    const zip = zipSync(Object.fromEntries([...records.map((r) => [`${r.id}.json`, strToU8(JSON.stringify(r))]), ['README.txt', strToU8('not a record')]]));
    const put = (secret: string | null) => exports.default.fetch(new Request('http://localhost/api/v1/dev/vulndb-stage?ecosystem=DevStage', {
      method: 'PUT', body: zip, headers: { 'content-type': 'application/zip', ...(secret === null ? {} : { 'x-dev-secret': secret }) },
    }));
    await expectError(await put(null), 401, 'unauthorized');
    expect(await json(await put(env.DEV_SECRET!))).toEqual({ bytes: zip.byteLength });
    const imported = await json(await dev('/api/v1/dev/vulndb-import?ecosystem=DevStage'));
    expect(imported).toMatchObject({ records: 3, inserted: 3, updated: 0, unchanged: 0, complete: true });
    expect(imported.ms).toBeGreaterThan(0);
    const stored = await env.DB.prepare("SELECT id FROM vuln_records WHERE id LIKE 'DEV-%' ORDER BY id").all<{ id: string }>();
    expect(stored.results.map((r) => r.id)).toEqual(['DEV-0001', 'DEV-0002', 'DEV-0003']);
    // Again: the import is incremental.
    expect(await json(await dev('/api/v1/dev/vulndb-import?ecosystem=DevStage'))).toMatchObject({ records: 3, inserted: 0, unchanged: 3 });
  });

  it('answers 404 on an instance without a DEV_SECRET, as production is', async () => {
    const production = { ...env, DEV_SECRET: undefined } as unknown as typeof env;
    const request = new Request('http://localhost/api/v1/dev/seed', { method: 'POST', headers: { 'x-dev-secret': 'anything', 'content-type': 'application/json' }, body: '{}' });
    const ctx = { waitUntil: () => undefined, passThroughOnException: () => undefined, props: {} } as unknown as ExecutionContext;
    await expectError(await app.fetch(request, production, ctx), 404, 'not_found');
  });
});

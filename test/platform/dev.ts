// Local development routes: only on an instance with a DEV_SECRET, and only with it.
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { app } from '../../src/app';
import { DEMO } from '../../src/routes/dev';
import { cookieOf, DASHBOARD, expectPage, page, post } from '../dashboard';
import { dataTenant } from '../data-plane';
import { api, expectError, json, uniqueEmail } from '../helpers';
import { P } from '../pipeline';

const dev = (path: string, body: unknown = {}, secret: string | null = env.DEV_SECRET!) =>
  api(path, { body, headers: secret === null ? {} : { 'x-dev-secret': secret } });

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

  it('answers 404 on an instance without a DEV_SECRET, as production is', async () => {
    const production = { ...env, DEV_SECRET: undefined } as unknown as typeof env;
    const request = new Request('http://localhost/api/v1/dev/seed', { method: 'POST', headers: { 'x-dev-secret': 'anything', 'content-type': 'application/json' }, body: '{}' });
    const ctx = { waitUntil: () => undefined, passThroughOnException: () => undefined, props: {} } as unknown as ExecutionContext;
    await expectError(await app.fetch(request, production, ctx), 404, 'not_found');
  });
});

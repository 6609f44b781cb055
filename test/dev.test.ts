// Local development routes: only on an instance with a DEV_SECRET, and only with it.
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { app } from '../src/app';
import { DEMO } from '../src/routes/dev';
import { dataTenant } from './data-plane';
import { api, expectError, json, uniqueEmail } from './helpers';
import { P } from './pipeline';

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

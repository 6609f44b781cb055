// The MCP server for AI assistants (spec part 5 rule 9; issue: OAuth sign-in and approval, scoped
// tools, connected apps): the whole OAuth flow through the Worker, an MCP SDK client calling every
// tool and reading every resource, scopes never exceeding the person, disconnecting and member
// removal taking effect on the next call, and other tenants never reached.
import { env, exports } from 'cloudflare:workers';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { OsvRecord } from '../src/analysis/vulns/osv-types';
import { importRecords } from '../src/vulndb/import';
import { bumpAccessEpoch } from '../src/auth/access-cache';
import { API, api, expectError, json, latestLinkToken, newTenant, uniqueEmail } from './helpers';
import { activityRows, addPerson, addProject } from './people';
import { dataTenant } from './data-plane';
import { analysed, letRendersFinish, P, renderDocuments, sbom, settleScoring, startSurvey } from './pipeline';
import {
  authorizeUrl, Browser, call, connectAssistant, inputValue, mcpClient, pkce, REDIRECT_URI, registerClient, signInToApprove, tokenRequest,
} from './assistant';

const advisories = import.meta.glob('./fixtures/osv/*.json', { import: 'default', eager: true }) as Record<string, OsvRecord>;
const ALL_SCOPES = ['docs:read', 'project:read', 'project:write', 'credentials:create'];
/** The tools each scope lets an assistant see (and call). */
const READ_TOOLS = [
  'compareReports', 'getCriticalityHistory', 'getDataHealthSummary', 'getDecisionHistory', 'getTriageQueue', 'getExportProvenance', 'getJob', 'getPortfolio', 'getPortfolioHistory', 'getPortfolioState',
  'getProject', 'getReportSection', 'getReportSummary', 'getSubjectContent', 'listActivity', 'listDataHealthRuns', 'listJobs', 'listPortfolioMembers',
  'listPortfolios', 'listProjects', 'listReportExports', 'listSubjects', 'rankPortfolioFixes', 'resolveDataHealthRef', 'searchReport', 'simulatePortfolioFixes',
  'waitForJob',
];
const WRITE_TOOLS = [
  'addPortfolioMember', 'createDecision', 'createPortfolio', 'deletePortfolio', 'deleteSurvey', 'listStaleProjections', 'rateSubject', 'regenerateReport', 'regenerateSurvey',
  'removePortfolioMember', 'renderReport', 'restoreSurvey', 'updatePortfolio',
];
const CREDENTIAL_TOOLS = ['createApiToken', 'createUploadPass', 'listCredentials'];

type T = Awaited<ReturnType<typeof dataTenant>>;
let t: T;
let reportIds: string[];
let surveyId: string;

beforeAll(async () => {
  await importRecords(env.DB, Object.values(advisories), 'test');
  t = await dataTenant('assistant');
  const first = await analysed(t, sbom('shop', [['lodash', '4.17.15'], ['left-pad', '1.3.0']]));
  const second = await analysed(t, sbom('shop', [['lodash', '4.17.21'], ['left-pad', '1.3.0']]));
  await settleScoring(t);
  surveyId = second.surveyId;
  const survey = await json(await api(`${P(t.projectId)}/v1/job/${second.surveyId}`, { token: t.token }));
  reportIds = survey.steps.filter((s: any) => s.step_type === 'REPORT').map((s: any) => s.id);
  const before = await json(await api(`${P(t.projectId)}/v1/job/${first.surveyId}`, { token: t.token }));
  firstReportIds = before.steps.filter((s: any) => s.step_type === 'REPORT').map((s: any) => s.id);
}, 60_000);

let firstReportIds: string[];

afterAll(async () => {
  await letRendersFinish([t]);
}, 30_000);

const text = (result: { contents: object[] }) => String((result.contents[0] as { text?: string } | undefined)?.text ?? '');

describe('connecting: discovery, registration, authorize, token with PKCE, refresh', () => {
  it('answers an unauthenticated call with 401 and the discovery headers, and publishes the metadata', async () => {
    const res = await exports.default.fetch(new Request(`${API}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }));
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/Bearer .*resource_metadata="http:\/\/localhost\/\.well-known\/oauth-protected-resource\/mcp"/);
    const resource = await json(await exports.default.fetch(new Request(`${API}/.well-known/oauth-protected-resource/mcp`)));
    expect(resource).toMatchObject({ resource: `${API}/mcp`, authorization_servers: [API] });
    const server = await json(await exports.default.fetch(new Request(`${API}/.well-known/oauth-authorization-server`)));
    expect(server).toMatchObject({
      issuer: API, authorization_endpoint: `${API}/authorize`, token_endpoint: `${API}/oauth/token`, registration_endpoint: `${API}/oauth/register`,
      code_challenge_methods_supported: expect.arrayContaining(['S256']),
    });
    expect(server.scopes_supported).toEqual(expect.arrayContaining(ALL_SCOPES));
  });

  it('signs the person in by email link, asks for approval with reading ticked, and issues tokens for the verifier only', async () => {
    const clientId = await registerClient('Claude <script>');
    const { verifier, challenge } = await pkce();
    const browser = new Browser();
    const html = await signInToApprove(browser, clientId, t.user.email, challenge);
    // Reading is ticked by default; changes and credentials are not; the client's name is escaped.
    expect(html).toContain('Claude &lt;script&gt;');
    const checked = [...html.matchAll(/<input[^>]*name="scope"[^>]*>/g)].map((m) => m[0]);
    expect(checked.filter((i) => /\bchecked\b/.test(i)).map((i) => i.match(/value="([^"]+)"/)![1])).toEqual(['docs:read', 'project:read']);
    const approved = await browser.fetch('/authorize/approve', {
      form: { request: inputValue(html, 'request'), handle: inputValue(html, 'handle'), org: inputValue(html, 'org'), scope: ['docs:read', 'project:read'], decision: 'approve' },
    });
    expect(approved.status).toBe(302);
    const code = new URL(approved.headers.get('location')!).searchParams.get('code')!;

    const wrong = await tokenRequest({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, client_id: clientId, code_verifier: `${verifier}x` });
    expect(wrong.status).toBe(400);
    expect(await json(wrong)).toMatchObject({ error: 'invalid_grant' });

    const issued = await tokenRequest({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, client_id: clientId, code_verifier: verifier });
    expect(issued.status).toBe(200);
    const tokens = await json(issued);
    expect(tokens).toMatchObject({ token_type: 'bearer', expires_in: 3600, scope: 'docs:read project:read' });

    const refreshed = await tokenRequest({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: clientId });
    expect(refreshed.status).toBe(200);
    const renewed = await json(refreshed);
    expect(renewed.access_token).not.toBe(tokens.access_token);
    const client = await mcpClient(renewed.access_token);
    expect((await call(client, 'listProjects')).value.projects.map((p: any) => p.uuid)).toContain(t.projectId);
    await client.close();

    // The approval is a connected app of the organization, listed on the project with its scopes.
    const listed = await json(await api(`${P(t.projectId)}/credential`, { token: t.token }));
    const app = listed.find((c: any) => c.kind === 'connected_app' && c.name === 'Claude <script>');
    expect(app).toMatchObject({ scopes: ['docs:read', 'project:read'], createdBy: { id: t.user.id }, revokedAt: null, permissions: null });
    // Its use is recorded (at most once a minute), as for any credential.
    await vi.waitFor(async () => {
      const row = await env.DB.prepare('SELECT last_used_at FROM credentials WHERE jti = ?').bind(app.jti).first<{ last_used_at: string | null }>();
      expect(row?.last_used_at).toEqual(expect.any(String));
    });
    expect((await activityRows(t.orgId, 'connected_app.approved')).some((r) => r.data.jti === app.jti)).toBe(true);
  });

  it('refuses a link opened in another browser, a used link, and a request that is not valid; Deny goes back with access_denied', async () => {
    const clientId = await registerClient();
    const { challenge } = await pkce();
    const browser = new Browser();
    const start = await browser.fetch(authorizeUrl(clientId, challenge));
    const request = inputValue(await start.text(), 'request');
    await browser.fetch('/authorize/sign-in', { form: { request, email: t.user.email } });
    const token = await latestLinkToken(t.user.email);
    const elsewhere = await new Browser().fetch('/authorize/continue', { form: { request, token } });
    expect(elsewhere.status).toBe(400);
    expect(await elsewhere.text()).toContain('another browser');

    const invalidEmail = await browser.fetch('/authorize/sign-in', { form: { request, email: 'not an email' } });
    expect(invalidEmail.status).toBe(400);
    expect(await invalidEmail.text()).toContain('role="alert"');

    const approve = await browser.fetch('/authorize/continue', { form: { request, token } });
    expect(approve.status).toBe(200);
    const html = await approve.text();
    const again = await browser.fetch('/authorize/continue', { form: { request, token } });
    expect(await again.text()).toContain('already used');

    const denied = await browser.fetch('/authorize/approve', { form: { request, handle: inputValue(html, 'handle'), decision: 'deny' } });
    expect(denied.status).toBe(302);
    const location = new URL(denied.headers.get('location')!);
    expect(location.searchParams.get('error')).toBe('access_denied');
    expect(location.searchParams.get('state')).toBe('state-123');
    expect(browser.cookies.has('posture_authorize')).toBe(false);

    // Links for one address are bounded however they are asked for (5 unused at a time), answered as if sent.
    const flooded = uniqueEmail('flooded');
    for (let i = 0; i < 5; i++) expect((await api('/api/v1/auth/sign-in', { body: { email: flooded } })).status).toBe(202);
    const another = new Browser();
    const fresh = inputValue(await (await another.fetch(authorizeUrl(clientId, challenge))).text(), 'request');
    const unsentPage = await another.fetch('/authorize/sign-in', { form: { request: fresh, email: flooded } });
    expect(unsentPage.status).toBe(200);
    expect(await unsentPage.text()).toContain('Check your email');
    expect((await api('/api/v1/auth/sign-in', { body: { email: flooded } })).status).toBe(202);
    const links = await env.DB.prepare('SELECT count(*) AS n FROM sign_in_links WHERE email = ?').bind(flooded).first<{ n: number }>();
    expect(links?.n).toBe(5);

    const unknownClient = await new Browser().fetch(authorizeUrl('no-such-client', challenge));
    expect(unknownClient.status).toBe(400);
    expect(unknownClient.headers.get('content-security-policy')).toContain("default-src 'none'");
  });

  it('lets a person in several organizations pick one; the assistant then reaches that organization\'s projects only', async () => {
    const other = await newTenant('second-org');
    // The tenant's owner joins the second organization's Administrators team.
    const admins = await env.DB.prepare("SELECT id FROM teams WHERE org_id = ? AND name = 'Administrators'").bind(other.orgId).first<{ id: string }>();
    await env.DB.batch([
      env.DB.prepare('INSERT INTO org_members (org_id, user_id, joined_at) VALUES (?, ?, ?)').bind(other.orgId, t.user.id, new Date().toISOString()),
      env.DB.prepare('INSERT INTO team_members (team_id, user_id, added_at) VALUES (?, ?, ?)').bind(admins!.id, t.user.id, new Date().toISOString()),
    ]);
    await bumpAccessEpoch(env, other.orgId);

    const clientId = await registerClient();
    const { challenge, verifier } = await pkce();
    const browser = new Browser();
    const html = await signInToApprove(browser, clientId, t.user.email, challenge);
    expect(html).toContain('<select');
    expect(html).toContain(other.orgId);
    const approved = await browser.fetch('/authorize/approve', {
      form: { request: inputValue(html, 'request'), handle: inputValue(html, 'handle'), org: other.orgId, scope: ['project:read'], decision: 'approve' },
    });
    const code = new URL(approved.headers.get('location')!).searchParams.get('code')!;
    const tokens = await json(await tokenRequest({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, client_id: clientId, code_verifier: verifier }));
    const client = await mcpClient(tokens.access_token);
    const projects = (await call(client, 'listProjects')).value;
    expect(projects.org_uuid).toBe(other.orgId);
    expect(projects.projects.map((p: any) => p.uuid)).toEqual([other.projectId]);
    expect((await call(client, 'getProject', { projectId: t.projectId })).error).toMatchObject({ status: 404, code: 'not_found' });
    await client.close();
  });
});

describe('tools, resources and prompts with every scope', () => {
  let client: Client;
  let tokenFromAssistant: string;

  beforeAll(async () => {
    const connected = await connectAssistant(t.user.email, ALL_SCOPES, t.orgId);
    client = await mcpClient(connected.accessToken);
  });
  afterAll(async () => client?.close());

  it('lists every tool per area with its parameters and hints', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([...READ_TOOLS, ...WRITE_TOOLS, ...CREDENTIAL_TOOLS].sort());
    expect(tools.find((tool) => tool.name === 'deletePortfolio')!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    const rate = tools.find((tool) => tool.name === 'rateSubject')!;
    expect(rate.annotations).toMatchObject({ readOnlyHint: false });
    expect(rate.inputSchema.required).toEqual(expect.arrayContaining(['projectId', 'subject', 'value']));
    expect(tools.find((tool) => tool.name === 'listJobs')!.annotations).toMatchObject({ readOnlyHint: true });
    // The names are the API's operation ids where an operation exists.
    const doc = await json(await api('/api/v1/openapi.json'));
    const operationIds = new Set(Object.values(doc.paths).flatMap((ops: any) => Object.values(ops).map((op: any) => op.operationId)));
    expect(tools.map((tool) => tool.name).filter((name) => !operationIds.has(name))).toEqual(['waitForJob']);
  });

  it('calls the project, job and report tools with the answers the API gives', async () => {
    expect((await call(client, 'getProject', { projectId: t.projectId })).value).toEqual(await json(await api(`/api/v1/project/${t.projectId}`, { token: t.token })));
    const jobs = (await call(client, 'listJobs', { projectId: t.projectId, topLevel: true, status: 'COMPLETED' })).value;
    expect(jobs.jobs.map((j: any) => j.id)).toContain(surveyId);
    const job = (await call(client, 'getJob', { projectId: t.projectId, jobId: surveyId })).value;
    expect(job).toEqual(await json(await api(`${P(t.projectId)}/v1/job/${surveyId}`, { token: t.token })));
    const waited = (await call(client, 'waitForJob', { projectId: t.projectId, jobId: surveyId, timeoutSeconds: 1 })).value;
    expect(waited).toMatchObject({ finished: true, job: { id: surveyId, status: 'COMPLETED' } });
    // A survey still waiting for its upload: the wait ends at its timeout, with progress notifications on the way.
    const waiting = await startSurvey(t);
    const progress: { progress: number; total?: number; message?: string }[] = [];
    const result = await client.callTool({ name: 'waitForJob', arguments: { projectId: t.projectId, jobId: waiting.surveyId, timeoutSeconds: 1 } }, undefined, {
      onprogress: (p) => progress.push(p),
    });
    const unfinished = JSON.parse((result.content as { text: string }[])[0]!.text);
    expect(unfinished).toMatchObject({ finished: false, job: { id: waiting.surveyId, status: 'PENDING' } });
    expect(progress.length).toBeGreaterThan(0);
    expect(progress[0]).toMatchObject({ total: 100, message: expect.stringContaining('PENDING') });

    let composition = '';
    for (const reportId of reportIds) {
      const summary = (await call(client, 'getReportSummary', { projectId: t.projectId, reportId })).value;
      if (summary.type === 'composition') composition = reportId;
      expect(summary).toEqual(await json(await api(`${P(t.projectId)}/v1/report/${reportId}/summary`, { token: t.token })));
      const section = summary.sections.find((s: any) => s.kind === 'list');
      if (section) {
        const page = (await call(client, 'getReportSection', { projectId: t.projectId, reportId, section: section.name, limit: 5 })).value;
        expect(page).toEqual(await json(await api(`${P(t.projectId)}/v1/report/${reportId}/section/${section.name}?limit=5`, { token: t.token })));
      }
    }
    const search = await call(client, 'searchReport', { projectId: t.projectId, reportId: composition, query: 'lodash' });
    expect(search.ok).toBe(true);
    const from = firstReportIds[reportIds.indexOf(composition)];
    const compared = await call(client, 'compareReports', { projectId: t.projectId, from, to: composition });
    expect(compared.value).toEqual(await json(await api(`${P(t.projectId)}/v1/report/compare?from=${from}&to=${composition}`, { token: t.token })));
    const exports_ = (await call(client, 'listReportExports', { projectId: t.projectId, reportId: composition })).value;
    expect(exports_.formats[0]).toEqual({ format: 'json', url: `${API}${P(t.projectId)}/v1/report/${composition}/export/json`, provenance: `${API}${P(t.projectId)}/v1/report/${composition}/export/json/provenance` });
    const rendered = (await call(client, 'renderReport', { projectId: t.projectId, reportId: composition })).value;
    expect(Object.keys(rendered.renderSubJobIds).sort()).toEqual(['csv', 'html', 'pdf', 'pptx', 'xlsx']);
    const entry = (await activityRows(t.orgId, 'report.rendered')).at(-1)!;
    expect(entry).toMatchObject({ actor_kind: 'connected_app', actor_id: t.user.id, data: { reportId: composition } });
  });

  it('calls the portfolio, subject, data-health and activity tools', async () => {
    const { portfolios } = (await call(client, 'listPortfolios', { projectId: t.projectId })).value;
    const builtIn = portfolios.find((p: any) => p.is_implicit);
    const portfolioId = builtIn.portfolio_id;
    const state = (await call(client, 'getPortfolioState', { projectId: t.projectId, portfolioId })).value;
    expect(state).toEqual(await json(await api(`${P(t.projectId)}/v1/portfolio/${portfolioId}/state`, { token: t.token })));
    const ranked = (await call(client, 'rankPortfolioFixes', { projectId: t.projectId, portfolioId, limit: 5 })).value;
    expect(ranked).toEqual(await json(await api(`${P(t.projectId)}/v1/portfolio/${portfolioId}/rank?limit=5&summary=true`, { token: t.token })));
    if (ranked.rows.length) {
      const simulated = (await call(client, 'simulatePortfolioFixes', { projectId: t.projectId, portfolioId, fixes: [{ item_key: ranked.rows[0].item_key }] })).value;
      expect(simulated.projected.projected).toBe(true);
    }
    expect((await call(client, 'simulatePortfolioFixes', { projectId: t.projectId, portfolioId, fixes: [{ item_key: 'pkg:npm/not-ranked' }] })).error).toMatchObject({ status: 400 });
    const history = (await call(client, 'getPortfolioHistory', { projectId: t.projectId, portfolioId, axis: 'vuln' })).value;
    expect(history.rows.every((r: any) => r.axis === 'vuln')).toBe(true);

    const created = (await call(client, 'createPortfolio', { projectId: t.projectId, name: 'Shop by assistant', members: ['shop'] })).value;
    expect(created).toMatchObject({ name: 'Shop by assistant', members: [{ member_type: 'subject', value: 'shop' }] });
    const renamed = (await call(client, 'updatePortfolio', { projectId: t.projectId, portfolioId: created.portfolio_id, name: 'Shop (assistant)' })).value;
    expect(renamed).toMatchObject({ name: 'Shop (assistant)' });
    expect((await call(client, 'updatePortfolio', { projectId: t.projectId, portfolioId, name: 'x' })).error).toMatchObject({ status: 400 });
    expect((await call(client, 'deletePortfolio', { projectId: t.projectId, portfolioId: created.portfolio_id })).value).toEqual({ deleted: created.portfolio_id });
    await expectError(await api(`${P(t.projectId)}/v1/portfolio/${created.portfolio_id}`, { token: t.token }), 404, 'not_found');
    expect((await activityRows(t.orgId, 'portfolio.deleted')).at(-1)).toMatchObject({ actor_kind: 'connected_app', data: { portfolioId: created.portfolio_id } });

    const subjects = (await call(client, 'listSubjects', { projectId: t.projectId })).value;
    expect(JSON.stringify(subjects)).toContain('shop');
    const content = (await call(client, 'getSubjectContent', { projectId: t.projectId, subject: 'shop', limit: 2 })).value;
    expect(content).toMatchObject({ limit: 2, offset: 0 });
    const rating = (await call(client, 'rateSubject', { projectId: t.projectId, subject: 'shop', value: 'high', rationale: 'customer-facing' })).value;
    expect(rating).toMatchObject({ value: 'high' });
    expect((await activityRows(t.orgId, 'subject.rated')).at(-1)).toMatchObject({ actor_kind: 'connected_app', data: { subject: 'shop', value: 'high' } });

    expect((await call(client, 'getDataHealthSummary', { projectId: t.projectId })).value.subjects.length).toBeGreaterThan(0);
    const runs = (await call(client, 'listDataHealthRuns', { projectId: t.projectId, limit: 5 })).value;
    expect(runs.runs.length).toBeGreaterThan(0);
    const resolved = await call(client, 'resolveDataHealthRef', { projectId: t.projectId, ref: surveyId });
    expect(resolved.ok).toBe(true);

    const activity = (await call(client, 'listActivity', { actions: ['subject.rated'], limit: 5 })).value;
    expect(activity.entries[0]).toMatchObject({ action: 'subject.rated' });
  });

  it('creates an API token lasting one hour and an upload pass lasting 48 hours, under the app, never beyond the person', async () => {
    const created = (await call(client, 'createApiToken', { projectId: t.projectId, permissions: ['project:view'], name: 'for the assistant' })).value;
    expect(created).toMatchObject({ kind: 'api_token', permissions: ['project:view'], bearer_token: expect.any(String) });
    expect(Date.parse(created.expiresAt) - Date.parse(created.createdAt)).toBe(3_600_000);
    expect((await api(`${P(t.projectId)}/v1/job?limit=1`, { token: created.bearer_token })).status).toBe(200);
    tokenFromAssistant = created.bearer_token;
    const pass = (await call(client, 'createUploadPass', { projectId: t.projectId })).value;
    expect(Date.parse(pass.expiresAt) - Date.parse(pass.createdAt)).toBe(48 * 3_600_000);
    expect(pass.parentJti).toEqual(created.parentJti);
    expect((await call(client, 'createApiToken', { projectId: t.projectId, permissions: ['no:such'] })).error).toMatchObject({ status: 400, code: 'invalid_request' });
    const listed = (await call(client, 'listCredentials', { projectId: t.projectId })).value;
    expect(listed.map((c: any) => c.jti)).toEqual(expect.arrayContaining([created.jti, pass.jti, created.parentJti]));
    expect(tokenFromAssistant).toBeTruthy();
  });

  it('reads every resource and gets both prompts', async () => {
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri).sort()).toEqual(['posture://docs/analysis.md', 'posture://docs/ci.md', 'posture://docs/cli.md', 'posture://docs/inputs.md', 'posture://docs/notifications.md', 'posture://docs/openapi.json', 'posture://docs/scoring.md', 'posture://docs/specification.md', 'posture://docs/triage.md']);
    for (const resource of resources) {
      const read = await client.readResource({ uri: resource.uri });
      expect(text(read).length, resource.uri).toBeGreaterThan(1000);
    }
    const openapi = JSON.parse(text(await client.readResource({ uri: 'posture://docs/openapi.json' })));
    expect(openapi.paths['/api/v1/project/{projectId}/v1/portfolio/{portfolioId}/rank'].get.operationId).toBe('rankPortfolioFixes');
    expect(text(await client.readResource({ uri: 'posture://docs/specification.md' }))).toContain('# Posture Analysis Service: Interface Specification');
    expect(text(await client.readResource({ uri: 'posture://docs/triage.md' }))).toContain('| `not_affected` |');
    expect(text(await client.readResource({ uri: 'posture://docs/notifications.md' }))).toContain('`webhook-signature`');
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name).sort()).toEqual(['changes-since-last-survey', 'fix-first']);
    const prompt = await client.getPrompt({ name: 'fix-first', arguments: { projectId: t.projectId } });
    expect(JSON.stringify(prompt.messages)).toContain('rankPortfolioFixes');
  });

  it('refuses the dashboard host with 403 api_host_required', async () => {
    const connected = await connectAssistant(t.user.email, ['project:read'], t.orgId);
    const res = await exports.default.fetch(new Request(`http://${env.DASHBOARD_HOST}/mcp`, {
      method: 'POST', headers: { authorization: `Bearer ${connected.accessToken}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', host: env.DASHBOARD_HOST },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    }));
    await expectError(res, 403, 'api_host_required');
  });
});

describe('scopes and the person\'s permissions', () => {
  it('a read-only grant reads but cannot rate, render or create credentials; without docs it reads no documentation', async () => {
    const connected = await connectAssistant(t.user.email, ['project:read'], t.orgId);
    const client = await mcpClient(connected.accessToken);
    expect((await call(client, 'listSubjects', { projectId: t.projectId })).ok).toBe(true);
    expect((await call(client, 'rateSubject', { projectId: t.projectId, subject: 'shop', value: 'low' })).error).toMatchObject({ status: 403, code: 'permission_denied', permission: 'project:write' });
    expect((await call(client, 'renderReport', { projectId: t.projectId, reportId: reportIds[0] })).error).toMatchObject({ code: 'permission_denied', permission: 'project:write' });
    expect((await call(client, 'createPortfolio', { projectId: t.projectId, name: 'nope' })).error).toMatchObject({ code: 'permission_denied', permission: 'project:write' });
    expect((await call(client, 'createApiToken', { projectId: t.projectId, permissions: ['project:view'] })).error).toMatchObject({ code: 'permission_denied', permission: 'credentials:create' });
    expect((await call(client, 'createUploadPass', { projectId: t.projectId })).error).toMatchObject({ code: 'permission_denied' });
    await expect(client.readResource({ uri: 'posture://docs/scoring.md' })).rejects.toThrow(/documentation/);
    await client.close();
  });

  it('a token the assistant creates holds at most what its scopes let through', async () => {
    const connected = await connectAssistant(t.user.email, ['project:read', 'credentials:create'], t.orgId);
    const client = await mcpClient(connected.accessToken);
    expect((await call(client, 'createApiToken', { projectId: t.projectId, permissions: ['project:edit'] })).error).toMatchObject({ status: 400, code: 'invalid_request' });
    expect((await call(client, 'createApiToken', { projectId: t.projectId, permissions: ['project:view', 'project:portfolio:view'] })).ok).toBe(true);
    await client.close();
  });

  it('never exceeds the person: a Viewer who ticks everything still cannot change anything', async () => {
    const viewer = await addPerson(t, 'Viewer', 'viewer');
    const connected = await connectAssistant(viewer.user.email, ALL_SCOPES);
    const client = await mcpClient(connected.accessToken);
    expect((await call(client, 'getReportSummary', { projectId: t.projectId, reportId: reportIds[0] })).ok).toBe(true);
    expect((await call(client, 'rateSubject', { projectId: t.projectId, subject: 'shop', value: 'low' })).error).toMatchObject({ status: 403, code: 'permission_denied', permission: 'project:portfolio:rate' });
    expect((await call(client, 'renderReport', { projectId: t.projectId, reportId: reportIds[0] })).error).toMatchObject({ permission: 'project:edit' });
    expect((await call(client, 'createUploadPass', { projectId: t.projectId })).error).toMatchObject({ permission: 'project:edit' });
    expect((await call(client, 'listActivity', {})).error).toMatchObject({ permission: 'org:view_activity_log' });
    await client.close();
  });

  it('never reaches another tenant\'s project or a project the person does not reach', async () => {
    const stranger = await newTenant('stranger');
    const unreached = await addProject(t);
    const member = await addPerson(t, 'Member', 'narrow');
    // The member's team reaches every project; move them to a team that reaches none.
    await env.DB.prepare('UPDATE teams SET all_projects = 0 WHERE id IN (SELECT team_id FROM team_members WHERE user_id = ?)').bind(member.user.id).run();
    const connected = await connectAssistant(t.user.email, ALL_SCOPES, t.orgId);
    const client = await mcpClient(connected.accessToken);
    for (const projectId of [stranger.projectId, crypto.randomUUID()]) {
      expect((await call(client, 'getProject', { projectId })).error).toMatchObject({ status: 404, code: 'not_found' });
      expect((await call(client, 'listJobs', { projectId })).error).toMatchObject({ status: 404 });
      expect((await call(client, 'createUploadPass', { projectId })).error).toMatchObject({ status: 404 });
    }
    expect((await call(client, 'getProject', { projectId: unreached })).ok).toBe(true);
    await client.close();
    const narrow = await connectAssistant(member.user.email, ALL_SCOPES);
    const narrowClient = await mcpClient(narrow.accessToken);
    expect((await call(narrowClient, 'listProjects')).value.projects).toEqual([]);
    expect((await call(narrowClient, 'listSubjects', { projectId: t.projectId })).error).toMatchObject({ status: 404 });
    await narrowClient.close();
  });
});

describe('connected apps: disconnecting and removal', () => {
  it('canceling the app from any project it reaches disconnects it at once and cancels what it created', async () => {
    const second = await addProject(t);
    const connected = await connectAssistant(t.user.email, ALL_SCOPES, t.orgId);
    const client = await mcpClient(connected.accessToken);
    const token = (await call(client, 'createApiToken', { projectId: t.projectId, permissions: ['project:view'] })).value;
    const pass = (await call(client, 'createUploadPass', { projectId: t.projectId })).value;
    const appJti = token.parentJti;
    // Listed on both projects; canceled from the second one.
    const session = await json(await api(`/api/v1/project/${second}/session`, { token: t.token, method: 'POST' }));
    const onSecond = await json(await api(`${P(second)}/credential`, { token: session.jwt }));
    expect(onSecond.find((c: any) => c.jti === appJti)).toMatchObject({ kind: 'connected_app', revokedAt: null });
    expect((await api(`${P(second)}/credential/${appJti}`, { token: session.jwt, method: 'DELETE' })).status).toBe(204);

    const refused = await exports.default.fetch(new Request(`${API}/mcp`, {
      method: 'POST', headers: { authorization: `Bearer ${connected.accessToken}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', host: 'localhost' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    }));
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('invalid_token');
    await expect(call(client, 'listProjects')).rejects.toThrow();
    await expectError(await api(`${P(t.projectId)}/v1/job?limit=1`, { token: token.bearer_token }), 401, 'token_revoked');
    const listed = await json(await api(`${P(t.projectId)}/credential`, { token: t.token }));
    for (const jti of [appJti, token.jti, pass.jti]) expect(listed.find((c: any) => c.jti === jti)?.revokedAt, jti).toEqual(expect.any(String));
    // Its refresh token stops too.
    expect((await tokenRequest({ grant_type: 'refresh_token', refresh_token: connected.refreshToken, client_id: connected.clientId })).status).toBe(400);
    const entry = (await activityRows(t.orgId, 'connected_app.disconnected')).find((r) => r.data.jti === appJti)!;
    expect(entry.data).toMatchObject({ reason: 'canceled', canceled: expect.arrayContaining([token.jti, pass.jti]) });
  });

  it('removing the person from the organization disconnects their assistants there on the next call', async () => {
    const member = await addPerson(t, 'Member', 'leaver');
    const connected = await connectAssistant(member.user.email, ['project:read', 'credentials:create']);
    const client = await mcpClient(connected.accessToken);
    const token = (await call(client, 'createApiToken', { projectId: t.projectId, permissions: ['project:view'] })).value;
    expect((await api(`/api/v1/org/${t.orgId}/user/${member.user.id}`, { token: t.token, method: 'DELETE' })).status).toBe(204);
    await expect(call(client, 'listProjects')).rejects.toThrow();
    await expectError(await api(`${P(t.projectId)}/v1/job?limit=1`, { token: token.bearer_token }), 401, 'token_revoked');
    const entry = (await activityRows(t.orgId, 'connected_app.disconnected')).find((r) => r.data.jti === token.parentJti)!;
    expect(entry.data).toMatchObject({ reason: 'member_removed', userId: member.user.id });
  });
});

describe('a new person signs up through the assistant\'s sign-in', () => {
  it('creates their organization and approves for it', async () => {
    const email = uniqueEmail('newcomer');
    const connected = await connectAssistant(email, ['project:read']);
    const client = await mcpClient(connected.accessToken);
    const mine = (await call(client, 'listProjects')).value;
    expect(mine.projects).toHaveLength(1);
    await client.close();
  });
});

describe('what the person can do, the assistant can (issue 19)', () => {
  let client: Client;
  let readOnly: Client;
  let viewer: Client;

  beforeAll(async () => {
    client = await mcpClient((await connectAssistant(t.user.email, ALL_SCOPES, t.orgId)).accessToken);
    readOnly = await mcpClient((await connectAssistant(t.user.email, ['project:read'], t.orgId)).accessToken);
    const person = await addPerson(t, 'Viewer', 'viewer-19');
    viewer = await mcpClient((await connectAssistant(person.user.email, ALL_SCOPES)).accessToken);
  });
  afterAll(async () => Promise.all([client?.close(), readOnly?.close(), viewer?.close()]));

  it('triages with the person: the queue and a decision\'s history as the API answers them, a decision only with the change scope and project:edit (issue 23)', async () => {
    const queue = (await call(client, 'getTriageQueue', { projectId: t.projectId, limit: 20 })).value;
    expect(queue).toEqual(await json(await api(`${P(t.projectId)}/v1/triage?limit=20`, { token: t.token })));
    const finding = { type: 'vulnerability', advisory_id: 'GHSA-p6mc-m468-83gw', package: 'pkg:npm/lodash@4.17.15' };
    const decided = (await call(client, 'createDecision', { projectId: t.projectId, finding, state: 'not_affected', justification: 'code_not_present', detail: 'by assistant' })).value;
    expect(decided).toMatchObject({ version: 1, state: 'not_affected', suppressed: true, finding: { package: 'pkg:npm/lodash', version: '4.17.15' }, decided_by: { id: t.user.id, kind: 'connected_app' } });
    expect((await activityRows(t.orgId, 'finding.decided')).at(-1)).toMatchObject({ actor_kind: 'connected_app', data: { decisionId: decided.id } });
    const history = (await call(client, 'getDecisionHistory', { projectId: t.projectId, decisionId: decided.id })).value;
    expect(history).toEqual(await json(await api(`${P(t.projectId)}/v1/decision/${decided.id}/history`, { token: t.token })));
    expect((await call(client, 'createDecision', { projectId: t.projectId, finding, state: 'not_affected' })).error).toMatchObject({ status: 400, code: 'invalid_request' });
    expect((await call(readOnly, 'createDecision', { projectId: t.projectId, finding, state: 'in_triage' })).error).toMatchObject({ status: 403, code: 'permission_denied', permission: 'project:write' });
    expect((await call(viewer, 'createDecision', { projectId: t.projectId, finding, state: 'in_triage' })).error).toMatchObject({ status: 403, code: 'permission_denied', permission: 'project:edit' });
    expect((await call(readOnly, 'getDecisionHistory', { projectId: t.projectId, decisionId: decided.id })).value).toEqual(history);
    await settleScoring(t);
  });

  it('reads a portfolio with its settings and its members, and adds and removes members as the API does', async () => {
    const portfolio = (await call(client, 'createPortfolio', { projectId: t.projectId, name: `Members ${'x'.repeat(240)}` })).value;
    expect(portfolio.name).toHaveLength(248);
    const portfolioId = portfolio.portfolio_id;
    const get = (await call(client, 'getPortfolio', { projectId: t.projectId, portfolioId })).value;
    // As the API answers it (scoring may finish between the two reads).
    const scoring = ({ scoring: _s, scored_at: _at, score: _score, band: _band, axes: _axes, ...rest }: any) => rest;
    expect(scoring(get)).toEqual(scoring(await json(await api(`${P(t.projectId)}/v1/portfolio/${portfolioId}`, { token: t.token }))));
    expect(get.settings).toMatchObject({ axis_weights: expect.any(Object), bands: expect.any(Object) });

    const added = (await call(client, 'addPortfolioMember', { projectId: t.projectId, portfolioId, member: 'shop' })).value;
    expect(added).toEqual({ members: [{ member_type: 'subject', value: 'shop' }] });
    const withPackage = (await call(client, 'addPortfolioMember', { projectId: t.projectId, portfolioId, member: { type: 'package', value: 'pkg:npm/lodash' } })).value;
    expect(withPackage.members).toEqual([{ member_type: 'package', value: 'pkg:npm/lodash' }, { member_type: 'subject', value: 'shop' }]);
    // Adding one already present changes nothing and records nothing.
    await call(client, 'addPortfolioMember', { projectId: t.projectId, portfolioId, member: 'shop' });
    const addedEntries = (await activityRows(t.orgId, 'portfolio.member.added')).filter((r) => r.data.portfolioId === portfolioId);
    expect(addedEntries.map((r) => [r.actor_kind, r.data.member.value])).toEqual([['connected_app', 'shop'], ['connected_app', 'pkg:npm/lodash']]);
    const listed = (await call(client, 'listPortfolioMembers', { projectId: t.projectId, portfolioId })).value;
    expect(listed).toEqual(await json(await api(`${P(t.projectId)}/v1/portfolio/${portfolioId}/member`, { token: t.token })));

    const removed = (await call(client, 'removePortfolioMember', { projectId: t.projectId, portfolioId, type: 'package', value: 'pkg:npm/lodash' })).value;
    expect(removed).toEqual({ members: [{ member_type: 'subject', value: 'shop' }] });
    expect((await activityRows(t.orgId, 'portfolio.member.removed')).at(-1)).toMatchObject({ actor_kind: 'connected_app', actor_id: t.user.id, data: { portfolioId, member: { value: 'pkg:npm/lodash' } } });
    expect((await call(client, 'removePortfolioMember', { projectId: t.projectId, portfolioId, value: 'pkg:npm/lodash', type: 'package' })).error).toMatchObject({ status: 404, code: 'not_found' });
    const builtIn = (await call(client, 'listPortfolios', { projectId: t.projectId })).value.portfolios.find((p: any) => p.is_implicit);
    expect((await call(client, 'addPortfolioMember', { projectId: t.projectId, portfolioId: builtIn.portfolio_id, member: 'shop' })).error).toMatchObject({ status: 400 });

    // The change scope, and the person's own project:edit.
    expect((await call(readOnly, 'listPortfolioMembers', { projectId: t.projectId, portfolioId })).ok).toBe(true);
    expect((await call(readOnly, 'addPortfolioMember', { projectId: t.projectId, portfolioId, member: 'shop' })).error).toMatchObject({ status: 403, code: 'permission_denied', permission: 'project:write' });
    expect((await call(viewer, 'removePortfolioMember', { projectId: t.projectId, portfolioId, value: 'shop' })).error).toMatchObject({ status: 403, code: 'permission_denied', permission: 'project:edit' });
    expect((await call(viewer, 'getPortfolio', { projectId: t.projectId, portfolioId })).ok).toBe(true);
  });

  it('names portfolios up to 255 characters and members up to 2048, as the API does', async () => {
    const long = (await call(client, 'createPortfolio', { projectId: t.projectId, name: 'n'.repeat(255) })).value;
    expect(long.name).toHaveLength(255);
    expect((await call(client, 'createPortfolio', { projectId: t.projectId, name: 'n'.repeat(256) })).error).toMatchObject({ status: 400, code: 'invalid_parameter', parameter: 'name' });
    expect((await call(client, 'addPortfolioMember', { projectId: t.projectId, portfolioId: long.portfolio_id, member: 's'.repeat(2049) })).error).toMatchObject({ status: 400, parameter: 'member' });
    expect((await call(client, 'addPortfolioMember', { projectId: t.projectId, portfolioId: long.portfolio_id, member: 's'.repeat(2048) })).value.members).toHaveLength(1);
  });

  it('reads a subject\'s criticality history; the reading tools need the reading scope', async () => {
    await call(client, 'rateSubject', { projectId: t.projectId, subject: 'shop', value: 'medium', rationale: 'history' });
    const history = (await call(client, 'getCriticalityHistory', { projectId: t.projectId, subject: 'shop' })).value;
    expect(history[0]).toMatchObject({ value: 'medium', rationale: 'history', rater: { id: t.user.id } });
    expect(history).toEqual(await json(await api(`${P(t.projectId)}/v1/subject/shop/criticality/history`, { token: t.token })));
    expect((await call(client, 'getCriticalityHistory', { projectId: t.projectId, subject: 'no-such-subject' })).error).toMatchObject({ status: 404, code: 'not_found' });
    // The new reading tools need the reading scope.
    const docsOnly = await mcpClient((await connectAssistant(t.user.email, ['docs:read'], t.orgId)).accessToken);
    const builtIn = (await call(client, 'listPortfolios', { projectId: t.projectId })).value.portfolios.find((p: any) => p.is_implicit).portfolio_id;
    for (const [name, args] of [
      ['getCriticalityHistory', { subject: 'shop' }], ['getPortfolio', { portfolioId: builtIn }], ['listPortfolioMembers', { portfolioId: builtIn }],
      ['getExportProvenance', { reportId: reportIds[0], format: 'json' }],
    ] as const) {
      expect((await call(client, name, { projectId: t.projectId, ...args })).ok, name).toBe(true);
      expect((await call(docsOnly, name, { projectId: t.projectId, ...args })).error, name).toMatchObject({ status: 403, code: 'permission_denied', permission: 'project:read' });
    }
    await docsOnly.close();
  });
});

describe('surveys and reports changed by an assistant (issue 19)', () => {
  let u: T;
  let surveys: { surveyId: string }[];
  let client: Client;
  let readOnly: Client;
  let member: Client;
  const reportsOf = async (surveyId: string) =>
    (await json(await api(`${P(u.projectId)}/v1/job/${surveyId}`, { token: u.token }))).steps.filter((s: any) => s.step_type === 'REPORT');

  beforeAll(async () => {
    u = await dataTenant('assistant-changes');
    surveys = [];
    // One subject each: a report is regenerated from its subject's latest analysis.
    for (const [subject, version] of [['store-a', '4.17.15'], ['store-b', '4.17.19'], ['store-c', '4.17.20']]) surveys.push(await analysed(u, sbom(subject!, [['lodash', version!]])));
    client = await mcpClient((await connectAssistant(u.user.email, ALL_SCOPES, u.orgId)).accessToken);
    readOnly = await mcpClient((await connectAssistant(u.user.email, ['project:read'], u.orgId)).accessToken);
    const person = await addPerson(u, 'Member', 'member-19');
    member = await mcpClient((await connectAssistant(person.user.email, ALL_SCOPES)).accessToken);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([client?.close(), readOnly?.close(), member?.close()]);
    await letRendersFinish([u]);
  }, 30_000);

  it('reads a document\'s provenance and lists stale documents (project:admin, through the change scope)', async () => {
    await renderDocuments(u, { formats: ['html'] });
    const [report] = await reportsOf(surveys[0]!.surveyId);
    for (const format of ['json', 'html']) {
      const provenance = await call(client, 'getExportProvenance', { projectId: u.projectId, reportId: report.id, format });
      expect(provenance.value, format).toEqual(await json(await api(`${P(u.projectId)}/v1/report/${report.id}/export/${format}/provenance`, { token: u.token })));
    }
    expect((await call(client, 'getExportProvenance', { projectId: u.projectId, reportId: report.id, format: 'docx' })).error).toMatchObject({ status: 400, code: 'invalid_parameter', parameter: 'format' });
    expect((await call(readOnly, 'getExportProvenance', { projectId: u.projectId, reportId: report.id, format: 'json' })).ok).toBe(true);

    expect((await call(client, 'listStaleProjections', { projectId: u.projectId })).value).toEqual([]);
    const stale = (await call(client, 'listStaleProjections', { projectId: u.projectId, parentId: surveys[0]!.surveyId, templateVersions: { html: 99 } })).value;
    expect(stale.length).toBeGreaterThan(0);
    expect(stale.every((e: any) => e.format === 'html' && e.survey_id === surveys[0]!.surveyId && e.reasons[0].reason === 'template_version')).toBe(true);
    const query = `?parentId=${surveys[0]!.surveyId}&templateVersions=${encodeURIComponent('{"html":"99"}')}`;
    expect(stale).toEqual(await json(await api(`${P(u.projectId)}/v1/projection/stale${query}`, { token: u.token })));
    expect((await call(readOnly, 'listStaleProjections', { projectId: u.projectId })).error).toMatchObject({ status: 403, code: 'permission_denied', permission: 'project:write' });
    expect((await call(member, 'listStaleProjections', { projectId: u.projectId })).error).toMatchObject({ status: 403, code: 'permission_denied', permission: 'project:admin' });
  }, 40_000);

  it('regenerates a report: the job to follow, the same answer for a repeated key, recorded as the API records it', async () => {
    const [report] = await reportsOf(surveys[1]!.surveyId);
    expect((await call(readOnly, 'regenerateReport', { projectId: u.projectId, reportId: report.id })).error).toMatchObject({ code: 'permission_denied', permission: 'project:write' });
    const regenerated = await call(client, 'regenerateReport', { projectId: u.projectId, reportId: report.id, idempotencyKey: 'assistant-1' });
    expect(regenerated.value).toMatchObject({ job_id: expect.any(String), supersedes: surveys[1]!.surveyId });
    expect((await call(client, 'regenerateReport', { projectId: u.projectId, reportId: report.id, idempotencyKey: 'assistant-1' })).value).toEqual(regenerated.value);
    expect((await call(client, 'regenerateReport', { projectId: u.projectId, reportId: report.id })).error).toMatchObject({ status: 409, code: 'conflict' });
    // The replay of the key answered the first answer and recorded nothing (issue 19: replays record nothing).
    const entries = (await activityRows(u.orgId, 'report.regenerated')).filter((r) => r.data.reportId === report.id);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ actor_kind: 'connected_app', actor_id: u.user.id, project_id: u.projectId, data: { surveyId: regenerated.value.job_id, supersedes: surveys[1]!.surveyId } });
    expect((await call(client, 'getJob', { projectId: u.projectId, jobId: regenerated.value.job_id })).value).toMatchObject({ supersedes: surveys[1]!.surveyId });
  });

  it('regenerates a survey (reports only unless told), once per key', async () => {
    const surveyId = surveys[0]!.surveyId;
    expect((await call(member, 'regenerateSurvey', { projectId: u.projectId, surveyId })).error).toMatchObject({ status: 400, code: 'invalid_parameter', parameter: 'idempotencyKey' });
    const answer = (await call(client, 'regenerateSurvey', { projectId: u.projectId, surveyId, idempotencyKey: 'survey-1' })).value;
    expect(answer).toMatchObject({ parent_id: expect.any(String), supersedes: surveyId, sub_job_ids: expect.any(Object) });
    expect((await call(client, 'regenerateSurvey', { projectId: u.projectId, surveyId, idempotencyKey: 'survey-1' })).value).toEqual(answer);
    const entries = (await activityRows(u.orgId, 'survey.regenerated')).filter((r) => r.data.supersedes === surveyId);
    expect(entries.map((r) => [r.actor_kind, r.data.surveyId, r.data.skipAnalyze])).toEqual([['connected_app', answer.parent_id, true]]);
    const job = (await call(client, 'getJob', { projectId: u.projectId, jobId: answer.parent_id })).value;
    expect(job.steps.find((s: any) => s.step_type === 'ANALYZE').status).toBe('SKIPPED');
    expect((await call(readOnly, 'regenerateSurvey', { projectId: u.projectId, surveyId, idempotencyKey: 'survey-2' })).error).toMatchObject({ permission: 'project:write' });
  });

  it('deletes a survey (project:edit) and restores it (project:admin)', async () => {
    const surveyId = surveys[2]!.surveyId;
    expect((await call(readOnly, 'deleteSurvey', { projectId: u.projectId, surveyId })).error).toMatchObject({ code: 'permission_denied', permission: 'project:write' });
    const deleted = (await call(member, 'deleteSurvey', { projectId: u.projectId, surveyId })).value;
    expect(deleted).toMatchObject({ id: surveyId, deleted_at: expect.any(String) });
    expect((await call(client, 'deleteSurvey', { projectId: u.projectId, surveyId })).value.deleted_at).toBe(deleted.deleted_at);
    expect((await call(client, 'listJobs', { projectId: u.projectId, topLevel: true })).value.jobs.map((j: any) => j.id)).not.toContain(surveyId);
    expect((await activityRows(u.orgId, 'survey.deleted')).filter((r) => r.data.surveyId === surveyId).map((r) => r.actor_kind)).toEqual(['connected_app']);
    expect((await call(client, 'deleteSurvey', { projectId: u.projectId, surveyId: (await reportsOf(surveyId))[0].id })).error).toMatchObject({ status: 400 });

    expect((await call(member, 'restoreSurvey', { projectId: u.projectId, surveyId })).error).toMatchObject({ status: 403, code: 'permission_denied', permission: 'project:admin' });
    const restored = (await call(client, 'restoreSurvey', { projectId: u.projectId, surveyId })).value;
    expect(restored).toMatchObject({ id: surveyId, deleted_at: null });
    expect((await activityRows(u.orgId, 'survey.restored')).filter((r) => r.data.surveyId === surveyId)).toMatchObject([{ actor_kind: 'connected_app', actor_id: u.user.id }]);
  });
});

describe('one project id, scopes visible, one error shape (issue 19)', () => {
  it('an upper-cased project id reads the project\'s own data (the object named by the lower-cased id)', async () => {
    const client = await mcpClient((await connectAssistant(t.user.email, ['project:read'], t.orgId)).accessToken);
    const upper = t.projectId.toUpperCase();
    for (const [name, args] of [
      ['listSubjects', {}], ['getJob', { jobId: surveyId.toUpperCase() }], ['getReportSummary', { reportId: reportIds[0]!.toUpperCase() }], ['listJobs', { limit: 5 }],
    ] as const) {
      const lower = await call(client, name, { projectId: t.projectId, ...args });
      expect(lower.ok, name).toBe(true);
      expect(await call(client, name, { projectId: upper, ...args }), name).toEqual(lower);
    }
    await client.close();
  });

  it('lists only the tools the scopes allow; one left out still answers permission_denied naming the scope', async () => {
    const listed = async (scopes: string[]) => {
      const client = await mcpClient((await connectAssistant(t.user.email, scopes, t.orgId)).accessToken);
      const names = (await client.listTools()).tools.map((tool) => tool.name).sort();
      return { client, names };
    };
    const reader = await listed(['docs:read', 'project:read']);
    expect(reader.names).toEqual([...READ_TOOLS].sort());
    expect((await call(reader.client, 'deletePortfolio', { projectId: t.projectId, portfolioId: crypto.randomUUID() })).error).toMatchObject({ status: 403, code: 'permission_denied', permission: 'project:write' });
    const writer = await listed(['project:read', 'project:write']);
    expect(writer.names).toEqual([...READ_TOOLS, ...WRITE_TOOLS].sort());
    const issuer = await listed(['credentials:create']);
    expect(issuer.names).toEqual([...CREDENTIAL_TOOLS].sort());
    const docs = await listed(['docs:read']);
    expect(docs.names).toEqual([]);
    expect((await docs.client.listResources()).resources.length).toBeGreaterThan(0);
    await Promise.all([reader, writer, issuer, docs].map((l) => l.client.close()));
  });

  it('answers an invalid argument with the API\'s invalid_parameter naming it', async () => {
    const client = await mcpClient((await connectAssistant(t.user.email, ALL_SCOPES, t.orgId)).accessToken);
    const refused = async (name: string, args: Record<string, unknown>) => (await call(client, name, args)).error;
    expect(await refused('getJob', { projectId: t.projectId, jobId: 'not-a-uuid' })).toEqual({
      status: 400, code: 'invalid_parameter', parameter: 'jobId', error: expect.stringContaining('jobId'),
    });
    expect(await refused('listJobs', {})).toMatchObject({ status: 400, code: 'invalid_parameter', parameter: 'projectId' });
    expect(await refused('rankPortfolioFixes', { projectId: t.projectId, portfolioId: crypto.randomUUID(), limit: 10_001 })).toMatchObject({ code: 'invalid_parameter', parameter: 'limit' });
    expect(await refused('rateSubject', { projectId: t.projectId, subject: 'shop', value: 'urgent' })).toMatchObject({ code: 'invalid_parameter', parameter: 'value' });
    expect(await refused('simulatePortfolioFixes', { projectId: t.projectId, portfolioId: crypto.randomUUID(), fixes: [{ item_key: 3 }] })).toMatchObject({ code: 'invalid_parameter', parameter: 'fixes', error: expect.stringContaining('fixes.0.item_key') });
    await client.close();
  });

  it('says in each description which field of an answer holds the id a tool takes', async () => {
    const client = await mcpClient((await connectAssistant(t.user.email, ALL_SCOPES, t.orgId)).accessToken);
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    expect(byName.listProjects!.description).toMatch(/`uuid`.*projectId/);
    expect(byName.listProjects!.description).toContain('`org_uuid`');
    expect(byName.getProject!.description).toMatch(/`id`.*projectId/);
    expect(byName.getProject!.description).toContain('`orgId`');
    // Every id a tool takes is described by the answer field it comes from.
    for (const tool of tools) {
      for (const [name, property] of Object.entries(tool.inputSchema.properties ?? {}) as [string, any][]) {
        const isId = property.format === 'uuid' || property.anyOf?.some((p: any) => p.format === 'uuid');
        if (isId) expect(property.description, `${tool.name}.${name}`).toMatch(/`[a-z_.]+`/i);
      }
    }
    await client.close();
  });
});

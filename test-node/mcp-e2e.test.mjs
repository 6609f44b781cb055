// End to end: an AI assistant connects to the MCP server under `wrangler dev` the way a real one does.
// The MCP SDK's own OAuth client (`OAuthClientProvider` + `StreamableHTTPClientTransport`) meets the 401,
// follows the real discovery documents (/.well-known/oauth-protected-resource/mcp, then
// /.well-known/oauth-authorization-server), registers itself and starts PKCE; our provider's
// `redirectToAuthorization` plays the person at the browser: the sign-in page, the emailed link (read
// from the .eml file wrangler logs), Continue, then Allow with the default ticks (docs:read and
// project:read). The SDK then exchanges the code, refreshes the tokens, and the tools answer.
import { readFile, rm } from 'node:fs/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { auth, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devCall, ensureDevVars, startWranglerDev, waitForService, wrangler } from '../scripts/local.mjs';
import { tempDir } from './helpers.mjs';

// MCP_E2E_PORT picks another port (several checkouts on one machine).
const PORT = Number(process.env.MCP_E2E_PORT || 18313);
// The OAuth issuer and resource are built from API_URL: it must be the origin the client uses.
const BASE = `http://127.0.0.1:${PORT}`;
const MCP_URL = new URL(`${BASE}/mcp`);
// Nothing listens there: the approval's redirect is read from its Location header, as a browser would follow it.
const REDIRECT_URI = 'http://127.0.0.1:18399/callback';

/** @type {import('node:child_process').ChildProcess} */
let server;
let persistTo = '';
/** Everything wrangler dev printed (stdout and stderr): the sent emails' .eml paths are logged there. */
let logs = '';
/** @type {{ orgId: string, projectId: string, adminEmail: string }} */
let demo;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** One browser's cookies (no redirects followed: the last one leaves for the assistant's redirect URI). */
class Browser {
  cookies = new Map();
  /** @type {string[]} */
  visited = [];

  async fetch(url, { form } = {}) {
    const headers = new Headers();
    if (this.cookies.size) headers.set('cookie', [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    let body;
    if (form) {
      const params = new URLSearchParams();
      for (const [key, value] of Object.entries(form)) for (const v of [value].flat()) params.append(key, v);
      body = params.toString();
      headers.set('content-type', 'application/x-www-form-urlencoded');
      // A browser's form post carries the page's origin.
      headers.set('origin', BASE);
    }
    const target = new URL(url, BASE);
    this.visited.push(`${form ? 'POST' : 'GET'} ${target.pathname}`);
    const res = await fetch(target, { method: form ? 'POST' : 'GET', headers, body, redirect: 'manual' });
    for (const cookie of res.headers.getSetCookie()) {
      const [pair, ...attributes] = cookie.split(';');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at).trim();
      const expired = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a) || /^\s*expires=thu, 01 jan 1970/i.test(a));
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, pair.slice(at + 1).trim());
    }
    return res;
  }
}

/** A named input's value in a page (hidden inputs carry the request id, the link token, the consent handle). */
function inputValue(html, name) {
  const tag = [...html.matchAll(/<input\b[^>]*>/g)].map((m) => m[0]).find((t) => t.includes(` name="${name}"`));
  const value = tag?.match(/\svalue="([^"]*)"/)?.[1];
  if (value === undefined) throw new Error(`no input ${name} in the page:\n${html.slice(0, 2000)}`);
  return value.replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

/** The scope checkboxes of the approval page, with whether each is ticked. */
function scopeBoxes(html) {
  return Object.fromEntries([...html.matchAll(/<input\b[^>]*name="scope"[^>]*>/g)].map(([tag]) => [tag.match(/value="([^"]*)"/)[1], /\schecked(?:=""|\s|\/?>)/.test(tag)]));
}

const h1Count = (html) => (html.match(/<h1[\s>]/g) ?? []).length;

/** Waits for the next email wrangler reports after `offset` in its output, and answers the message. */
async function nextEmail(offset, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const path = logs.slice(offset).match(/send_email binding called[^\n]*\n(?:\s*Email:)?\s*(\S+\.eml)/)?.[1];
    if (path) return readFile(path, 'utf8');
    if (Date.now() > deadline) throw new Error(`wrangler logged no email within ${timeoutMs / 1000} s:\n${logs.slice(offset)}`);
    await sleep(100);
  }
}

/**
 * The assistant's OAuth state, in memory, as the SDK asks for it. `redirectToAuthorization` is where a
 * real assistant opens the person's browser: here the person's steps are played with `Browser`.
 */
class PersonAtTheBrowser {
  /** @type {any} */ client;
  /** @type {any} */ savedTokens;
  verifier = '';
  /** The code the approval sent to the redirect URI, and its state. */
  code = '';
  returnedState = '';
  expectedState = `state-${Date.now()}`;
  /** What the person saw on the way (for the assertions). */
  seen = { signInH1: 0, approveH1: 0, scopes: {}, emailLink: '', authorizeUrl: /** @type {URL | null} */ (null) };
  browser = new Browser();

  constructor(email, tick) {
    this.email = email;
    this.tick = tick;
  }

  get redirectUrl() { return REDIRECT_URI; }
  get clientMetadata() {
    return { client_name: 'Posture e2e assistant', redirect_uris: [REDIRECT_URI], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
  }
  state() { return this.expectedState; }
  clientInformation() { return this.client; }
  saveClientInformation(info) { this.client = info; }
  tokens() { return this.savedTokens; }
  saveTokens(tokens) { this.savedTokens = tokens; }
  saveCodeVerifier(verifier) { this.verifier = verifier; }
  codeVerifier() { return this.verifier; }

  async redirectToAuthorization(url) {
    this.seen.authorizeUrl = url;
    const browser = this.browser;
    const start = await browser.fetch(url.href);
    const signIn = await start.text();
    expect(start.status, signIn).toBe(200);
    this.seen.signInH1 = h1Count(signIn);
    const request = inputValue(signIn, 'request');

    const offset = logs.length;
    const sent = await browser.fetch('/authorize/sign-in', { form: { request, email: this.email } });
    expect(sent.status).toBe(200);
    expect(await sent.text()).toContain('Check your email');

    const message = await nextEmail(offset);
    const link = message.match(/https?:\/\/\S+\/authorize\/continue\?\S+/)?.[0];
    if (!link) throw new Error(`no sign-in link in the email:\n${message}`);
    this.seen.emailLink = link;
    // The token is in the link's fragment, which fetch (like a browser) never sends; the page's script
    // (public/authorize/continue.js) copies it into the form, as done here.
    const linkUrl = new URL(link);
    expect([...linkUrl.searchParams.keys()]).toEqual(['request']);
    const token = new URLSearchParams(linkUrl.hash.slice(1)).get('token');
    expect(token).toEqual(expect.any(String));
    const opened = await browser.fetch(link);
    const continuePage = await opened.text();
    expect(opened.status, continuePage).toBe(200);
    expect(inputValue(continuePage, 'token')).toBe('');
    expect(continuePage).toContain('<script src="/authorize/continue.js"');
    const script = await fetch(`${BASE}/authorize/continue.js`);
    expect(script.status).toBe(200);
    expect(await script.text()).toContain('location.hash');

    const continued = await browser.fetch('/authorize/continue', { form: { request: inputValue(continuePage, 'request'), token } });
    const approvePage = await continued.text();
    expect(continued.status, approvePage).toBe(200);
    this.seen.approveH1 = h1Count(approvePage);
    this.seen.scopes = scopeBoxes(approvePage);

    const approved = await browser.fetch('/authorize/approve', {
      form: { request: inputValue(approvePage, 'request'), handle: inputValue(approvePage, 'handle'), org: inputValue(approvePage, 'org'), scope: this.tick, decision: 'approve' },
    });
    expect(approved.status, await approved.text()).toBe(302);
    const location = new URL(approved.headers.get('location'));
    expect(location.origin + location.pathname).toBe(REDIRECT_URI);
    this.code = location.searchParams.get('code') ?? '';
    this.returnedState = location.searchParams.get('state') ?? '';
  }
}

/** A fetch that records the paths the SDK called (its discovery, registration and token requests included). */
function recordingFetch(log) {
  return (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    log.push(`${init?.method ?? (input instanceof Request ? input.method : 'GET')} ${url.pathname}`);
    return fetch(input, init);
  };
}

/** A tool's answer, parsed: `{ ok, value }` or `{ ok: false, error }` (the API's error body). */
async function call(client, name, args = {}) {
  const result = await client.callTool({ name, arguments: args });
  const text = result.content?.[0]?.text ?? '';
  return result.isError ? { ok: false, error: JSON.parse(text) } : { ok: true, value: JSON.parse(text) };
}

beforeAll(async () => {
  persistTo = await tempDir();
  ensureDevVars();
  await wrangler(['d1', 'migrations', 'apply', 'DB', '--local', '--persist-to', persistTo]);
  server = startWranglerDev({ port: PORT, persistTo, group: true, pipe: true, vars: { API_URL: BASE } });
  server.stdout.on('data', (d) => (logs += d));
  server.stderr.on('data', (d) => (logs += d));
  await waitForService(BASE);
  demo = await devCall(BASE, '/api/v1/dev/seed');
  // `npm run dev` gives the demo a "Customer-facing" portfolio after its sample uploads; the seed alone
  // does not, so it is made here the same way (by the admin, through the API).
  const { jwt } = await devCall(BASE, '/api/v1/dev/session');
  const api = (method, path, body) => fetch(`${BASE}/api/v1/project/${demo.projectId}${path}`, {
    method, headers: { authorization: `Bearer ${jwt}`, 'content-type': 'application/json' }, body: body && JSON.stringify(body),
  });
  // The project's storage is set up on first use (its INSTANCE_STARTUP job): portfolios answer once it is.
  for (let attempt = 0; attempt < 150 && (await api('GET', '/v1/portfolio')).status !== 200; attempt++) await sleep(200);
  const created = await api('POST', '/v1/portfolio', { name: 'Customer-facing', members: [{ type: 'subject', value: 'juice-shop' }, { type: 'subject', value: 'nginx' }] });
  expect(created.status, await created.text()).toBe(201);
}, 150_000);

afterAll(async () => {
  if (server?.pid && server.exitCode === null) {
    const exited = new Promise((resolve) => server.once('exit', resolve));
    try {
      process.kill(-server.pid, 'SIGTERM');
    } catch {
      // already gone
    }
    const timer = setTimeout(() => {
      try {
        process.kill(-server.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }, 10_000);
    await exited;
    clearTimeout(timer);
  }
  if (persistTo) await rm(persistTo, { recursive: true, force: true });
}, 30_000);

describe('an assistant connects to the MCP server under wrangler dev', () => {
  const person = new PersonAtTheBrowser('', ['project:read', 'docs:read']);
  /** @type {string[]} */
  const sdkRequests = [];
  /** @type {Client} */
  let client;

  afterAll(async () => client?.close());

  it('answers 401 naming its resource metadata, whose documents name this origin', async () => {
    const res = await fetch(MCP_URL, {
      method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '0' } } }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain(`resource_metadata="${BASE}/.well-known/oauth-protected-resource/mcp"`);
    const resource = await (await fetch(`${BASE}/.well-known/oauth-protected-resource/mcp`)).json();
    expect(resource).toMatchObject({ resource: `${BASE}/mcp`, authorization_servers: [BASE] });
    const server = await (await fetch(`${BASE}/.well-known/oauth-authorization-server`)).json();
    expect(server).toMatchObject({
      issuer: BASE, authorization_endpoint: `${BASE}/authorize`, token_endpoint: `${BASE}/oauth/token`, registration_endpoint: `${BASE}/oauth/register`,
      code_challenge_methods_supported: ['S256'], scopes_supported: ['docs:read', 'project:read', 'project:write', 'credentials:create'],
    });
  });

  it('signs in by email link and approves through the SDK\'s OAuth client, then connects', async () => {
    person.email = demo.adminEmail;
    const first = new StreamableHTTPClientTransport(MCP_URL, { authProvider: person, fetch: recordingFetch(sdkRequests) });
    // The first connection meets the 401; the SDK discovers, registers and sends the person to authorize.
    await expect(new Client({ name: 'posture-e2e', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(person.seen.authorizeUrl?.searchParams.get('resource')).toBe(`${BASE}/mcp`);
    expect(person.seen.authorizeUrl?.searchParams.get('code_challenge_method')).toBe('S256');
    expect(person.seen.emailLink.startsWith(`${BASE}/authorize/continue?request=`)).toBe(true);
    expect(person.browser.visited).toEqual(['GET /authorize', 'POST /authorize/sign-in', 'GET /authorize/continue', 'POST /authorize/continue', 'POST /authorize/approve']);
    expect(person.seen.signInH1).toBe(1);
    expect(person.seen.approveH1).toBe(1);
    // Reading is ticked by default, changes and credentials are not.
    expect(person.seen.scopes).toEqual({ 'docs:read': true, 'project:read': true, 'project:write': false, 'credentials:create': false });
    expect(person.code).not.toBe('');
    expect(person.returnedState).toBe(person.expectedState);

    // As the SDK documents: hand the code to the transport, then connect again.
    await first.finishAuth(person.code);
    expect(person.savedTokens).toMatchObject({ token_type: expect.stringMatching(/^bearer$/i), access_token: expect.any(String), refresh_token: expect.any(String), scope: 'project:read docs:read' });
    expect(sdkRequests).toEqual(expect.arrayContaining([
      'GET /.well-known/oauth-protected-resource/mcp', 'GET /.well-known/oauth-authorization-server', 'POST /oauth/register', 'POST /oauth/token',
    ]));
    client = new Client({ name: 'posture-e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(MCP_URL, { authProvider: person, fetch: recordingFetch(sdkRequests) }));
    expect(client.getServerVersion()).toMatchObject({ name: 'posture-analysis' });
  }, 60_000);

  it('lists the tools, resources and prompts', async () => {
    const { tools } = await client.listTools();
    // Only what reading allows: the change and credential tools are not listed (they answer permission_denied).
    expect(tools.map((t) => t.name).sort()).toEqual([
      'compareReports', 'getCriticalityHistory', 'getDataHealthSummary', 'getDecisionHistory', 'getExportProvenance', 'getJob', 'getPortfolio', 'getPortfolioHistory', 'getPortfolioState',
      'getProject', 'getReportSection', 'getReportSummary', 'getSubjectContent', 'getTriageQueue', 'listActivity', 'listDataHealthRuns', 'listJobs', 'listPortfolioMembers',
      'listPortfolios', 'listProjects', 'listReportExports', 'listSubjects', 'rankPortfolioFixes', 'resolveDataHealthRef', 'searchReport', 'simulatePortfolioFixes',
      'waitForJob',
    ]);
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri).sort()).toEqual(['analysis.md', 'ci.md', 'cli.md', 'inputs.md', 'notifications.md', 'openapi.json', 'scoring.md', 'specification.md', 'triage.md'].map((f) => `posture://docs/${f}`));
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name).sort()).toEqual(['changes-since-last-survey', 'fix-first']);
  });

  it('names the demo project and answers for its portfolio', async () => {
    const projects = await call(client, 'listProjects');
    expect(projects.value).toMatchObject({ org_uuid: demo.orgId, projects: [{ uuid: demo.projectId, name: 'Demo project' }] });
    const listed = await call(client, 'listPortfolios', { projectId: demo.projectId });
    expect(listed.ok, JSON.stringify(listed.error)).toBe(true);
    const portfolio = listed.value.portfolios.find((p) => p.name === 'Customer-facing');
    expect(portfolio).toBeDefined();
    // Scoring runs in the background: a 503-style `unscored` / `rescoring` is fine only after a while.
    let state;
    const deadline = Date.now() + 20_000;
    do {
      state = await call(client, 'getPortfolioState', { projectId: demo.projectId, portfolioId: portfolio.portfolio_id });
      if (state.ok) break;
      expect(state.error).toMatchObject({ status: 503, code: expect.stringMatching(/^(unscored|rescoring)$/) });
      await sleep(500);
    } while (Date.now() < deadline);
    if (state.ok) expect(state.value).toMatchObject({ portfolio_id: portfolio.portfolio_id, name: 'Customer-facing', score: expect.any(Object) });
  }, 40_000);

  it('reads the scoring guide as markdown', async () => {
    const read = await client.readResource({ uri: 'posture://docs/scoring.md' });
    expect(read.contents[0]).toMatchObject({ uri: 'posture://docs/scoring.md', mimeType: 'text/markdown' });
    expect(read.contents[0].text).toMatch(/^#\s/m);
  });

  it('is refused a change it was not allowed (project:write was not ticked)', async () => {
    const rated = await call(client, 'rateSubject', { projectId: demo.projectId, subject: 'juice-shop', value: 'high' });
    expect(rated.ok).toBe(false);
    expect(rated.error).toMatchObject({ code: 'permission_denied', permission: 'project:write' });
  });

  it('refreshes its tokens with the refresh token, and the new access token works', async () => {
    const before = person.savedTokens;
    sdkRequests.length = 0;
    // With stored tokens holding a refresh token, the SDK's auth() refreshes instead of authorizing again.
    expect(await auth(person, { serverUrl: MCP_URL, fetchFn: recordingFetch(sdkRequests) })).toBe('AUTHORIZED');
    expect(sdkRequests).toContain('POST /oauth/token');
    expect(person.savedTokens.access_token).not.toBe(before.access_token);
    expect(person.savedTokens.refresh_token).toEqual(expect.any(String));
    const again = new Client({ name: 'posture-e2e', version: '1.0.0' });
    await again.connect(new StreamableHTTPClientTransport(MCP_URL, { authProvider: person }));
    expect((await call(again, 'listProjects')).value.projects.map((p) => p.uuid)).toEqual([demo.projectId]);
    await again.close();
    // The person's browser took no further step: no new sign-in was needed.
    expect(person.browser.visited).toHaveLength(5);
  }, 30_000);
});

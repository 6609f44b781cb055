// Connecting an AI assistant the way a real one does: dynamic client registration, the authorize
// pages (email link sign-in, approval), the token endpoint with PKCE, then an MCP SDK client over
// Streamable HTTP with the access token, all through the Worker's own fetch handler.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { exports } from 'cloudflare:workers';
import { expect } from 'vitest';
import { API, latestLinkToken } from './helpers';

export const REDIRECT_URI = 'http://127.0.0.1:8976/callback';

/** One browser: a cookie jar over the Worker's fetch (no redirects followed). */
export class Browser {
  readonly cookies = new Map<string, string>();

  async fetch(path: string, init: { method?: string; form?: Record<string, string | string[]>; host?: string } = {}): Promise<Response> {
    const headers = new Headers();
    if (this.cookies.size) headers.set('cookie', [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    let body: string | undefined;
    if (init.form) {
      const form = new URLSearchParams();
      for (const [key, value] of Object.entries(init.form)) for (const v of [value].flat()) form.append(key, v);
      body = form.toString();
      headers.set('content-type', 'application/x-www-form-urlencoded');
    }
    const base = init.host ? `http://${init.host}` : API;
    const res = await exports.default.fetch(new Request(path.startsWith('http') ? path : `${base}${path}`, { method: init.method ?? (body ? 'POST' : 'GET'), headers, body, redirect: 'manual' }));
    for (const cookie of (res.headers as unknown as { getSetCookie(): string[] }).getSetCookie()) {
      const [pair, ...attributes] = cookie.split(';');
      const [name, ...value] = pair!.split('=');
      const expired = attributes.some((a: string) => /max-age=0\b/i.test(a.trim()) || /expires=thu, 01 jan 1970/i.test(a.trim()));
      if (expired) this.cookies.delete(name!.trim());
      else this.cookies.set(name!.trim(), value.join('=').trim());
    }
    return res;
  }
}

/** A hidden or named input's value in a page. */
export function inputValue(html: string, name: string): string {
  const match = html.match(new RegExp(`<input[^>]*name="${name}"[^>]*value="([^"]*)"`)) ?? html.match(new RegExp(`<input[^>]*value="([^"]*)"[^>]*name="${name}"`));
  if (!match) throw new Error(`no input ${name} in the page`);
  return match[1]!.replace(/&amp;/g, '&');
}

/** The organization the approval page offers first: its hidden input, or the first option of its select. */
function firstOrganization(html: string): string {
  const option = html.match(/<option[^>]*value="([0-9a-f-]{36})"/);
  return option ? option[1]! : inputValue(html, 'org');
}

const base64url = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

export async function pkce() {
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
  const challenge = base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
  return { verifier, challenge };
}

export async function registerClient(name = 'Test assistant'): Promise<string> {
  const res = await exports.default.fetch(new Request(`${API}/oauth/register`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: name, redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] }),
  }));
  expect(res.status).toBe(201);
  return ((await res.json()) as { client_id: string }).client_id;
}

export const authorizeUrl = (clientId: string, challenge: string, state = 'state-123') =>
  `/authorize?${new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: REDIRECT_URI, code_challenge: challenge, code_challenge_method: 'S256', state, resource: `${API}/mcp` })}`;

/** Through the pages up to the approval page: sign-in form, email link, continue. Answers the approval page's HTML. */
export async function signInToApprove(browser: Browser, clientId: string, email: string, challenge: string): Promise<string> {
  const start = await browser.fetch(authorizeUrl(clientId, challenge));
  expect(start.status).toBe(200);
  const request = inputValue(await start.text(), 'request');
  const sent = await browser.fetch('/authorize/sign-in', { form: { request, email } });
  expect(sent.status).toBe(200);
  await sent.text();
  const token = await latestLinkToken(email);
  // The emailed link is /authorize/continue?request=..#token=..: the browser sends no fragment, and the
  // page's script puts the token into the form Continue posts (public/authorize/continue.js).
  const opened = await browser.fetch(`/authorize/continue?${new URLSearchParams({ request })}`);
  expect(opened.status).toBe(200);
  await opened.text();
  const approve = await browser.fetch('/authorize/continue', { form: { request, token } });
  expect(approve.status).toBe(200);
  return approve.text();
}

export interface Connected {
  clientId: string;
  accessToken: string;
  refreshToken: string;
  verifier: string;
}

export async function tokenRequest(form: Record<string, string>): Promise<Response> {
  return exports.default.fetch(new Request(`${API}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() }));
}

/** The whole flow for a person (by email) and the scopes ticked; `orgId` picks the organization. */
export async function connectAssistant(email: string, scopes: string[], orgId?: string): Promise<Connected> {
  const clientId = await registerClient();
  const { verifier, challenge } = await pkce();
  const browser = new Browser();
  const html = await signInToApprove(browser, clientId, email, challenge);
  const approved = await browser.fetch('/authorize/approve', {
    form: { request: inputValue(html, 'request'), handle: inputValue(html, 'handle'), org: orgId ?? firstOrganization(html), scope: scopes, decision: 'approve' },
  });
  expect(approved.status).toBe(302);
  const location = new URL(approved.headers.get('location')!);
  expect(location.origin + location.pathname).toBe(REDIRECT_URI);
  expect(location.searchParams.get('state')).toBe('state-123');
  const code = location.searchParams.get('code')!;
  const res = await tokenRequest({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, client_id: clientId, code_verifier: verifier });
  expect(res.status).toBe(200);
  const tokens = (await res.json()) as { access_token: string; refresh_token: string };
  return { clientId, accessToken: tokens.access_token, refreshToken: tokens.refresh_token, verifier };
}

/** An MCP SDK client connected with the access token. */
export async function mcpClient(accessToken: string, host?: string): Promise<Client> {
  const client = new Client({ name: 'posture-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${host ? `http://${host}` : API}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${accessToken}` } },
    // A request from the network carries its Host header (the MCP transport checks it on local hosts).
    fetch: (input, init) => {
      const request = new Request(input as RequestInfo, init);
      request.headers.set('host', new URL(request.url).host);
      return exports.default.fetch(request);
    },
  });
  await client.connect(transport);
  return client;
}

/** A tool's answer, parsed: `{ok: true, value}` or `{ok: false, error}` (the API's error body). */
export async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = await client.callTool({ name, arguments: args });
  const text = (result.content as { type: string; text: string }[])[0]?.text ?? '';
  return result.isError ? { ok: false as const, error: JSON.parse(text), value: undefined } : { ok: true as const, value: JSON.parse(text), error: undefined };
}

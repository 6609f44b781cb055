// `npm run check:oauth-pages`: the MCP server's OAuth pages in a real browser (Debian's Chromium through
// the DevTools protocol, by puppeteer-core), run by hand (CI has no browser). Starts `wrangler dev` on
// port 18314 (or $OAUTH_PAGES_PORT) with API_URL set to its origin and a throwaway state, seeds the demo,
// registers a client and builds an authorize URL with PKCE, then as a person: the sign-in page, the email
// address typed, the link read from the .eml file wrangler logs (its token in the fragment, moved into the
// form by the page's script), Continue, scopes ticked and unticked with clicks, Allow. A tiny server on
// 127.0.0.1 takes the redirect with the code, which is exchanged at /oauth/token.
// Screenshots of each page (1280x900 viewport, whole page) go to docs/samples/mcp-*.png; checks: one h1,
// a label for every control, no console errors (CSP included), Tab reaching the Allow button.
// CHROMIUM=/path/to/chrome picks another browser. Exits 1 when a check fails.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer from 'puppeteer-core';
import { devCall, ensureDevVars, root, startWranglerDev, waitForService, wrangler } from './local.mjs';

// OAUTH_PAGES_PORT picks another port (several checkouts on one machine).
const PORT = Number(process.env.OAUTH_PAGES_PORT || 18314);
const BASE = `http://127.0.0.1:${PORT}`;
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const SAMPLES = join(root, 'docs/samples');
const VIEWPORT = { width: 1280, height: 900 };

const problems = [];
const summary = [];
const check = (ok, what) => {
  if (!ok) problems.push(what);
  return ok;
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const base64url = (bytes) => Buffer.from(bytes).toString('base64url');

let logs = '';
/** The next email wrangler reports after `offset` in its output. */
async function nextEmail(offset, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const path = logs.slice(offset).match(/send_email binding called[^\n]*\n(?:\s*Email:)?\s*(\S+\.eml)/)?.[1];
    if (path) return { path, text: await readFile(path, 'utf8') };
    if (Date.now() > deadline) throw new Error(`wrangler logged no email within ${timeoutMs / 1000} s`);
    await sleep(100);
  }
}

/** Where the approval redirects: records the code and shows a plain page, as an assistant's local listener would. */
function callbackServer() {
  let resolveCode;
  const code = new Promise((r) => (resolveCode = r));
  const server = createServer((req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    if (url.pathname !== '/callback') {
      res.writeHead(url.pathname === '/favicon.ico' ? 204 : 404).end();
      return;
    }
    resolveCode(Object.fromEntries(url.searchParams));
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>Connected</title><p>The assistant got its code; you can close this window.</p>');
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, port: server.address().port, code })));
}

/** What a page offers a person: title, h1s, controls without a label, buttons without a name. */
function pageFacts(page) {
  return page.evaluate(() => {
    const visible = (el) => el.type !== 'hidden' && !!(el.offsetWidth || el.offsetHeight || el.getClientRects().length);
    const controls = [...document.querySelectorAll('input, select, textarea')].filter(visible);
    const named = (el) => el.labels?.length || el.getAttribute('aria-label') || el.getAttribute('aria-labelledby');
    return {
      title: document.title,
      lang: document.documentElement.lang,
      h1: [...document.querySelectorAll('h1')].map((h) => h.textContent.replace(/\s+/g, ' ').trim()),
      unlabelled: controls.filter((el) => !named(el)).map((el) => el.outerHTML.slice(0, 120)),
      unnamedButtons: [...document.querySelectorAll('button')].filter((b) => !b.textContent.trim() && !b.getAttribute('aria-label')).length,
      horizontalScroll: document.documentElement.scrollWidth > window.innerWidth,
    };
  });
}

async function checkPage(page, name) {
  const facts = await pageFacts(page);
  check(facts.h1.length === 1, `${name}: ${facts.h1.length} h1 elements (want 1)`);
  check(!!facts.title, `${name}: no <title>`);
  check(!!facts.lang, `${name}: no lang on <html>`);
  check(!facts.unlabelled.length, `${name}: controls without a label: ${facts.unlabelled.join(' | ')}`);
  check(!facts.unnamedButtons, `${name}: ${facts.unnamedButtons} buttons without a name`);
  check(!facts.horizontalScroll, `${name}: scrolls sideways at ${VIEWPORT.width} px`);
  summary.push(`${name}: "${facts.title}", h1 "${facts.h1.join('" / "')}"`);
  return facts;
}

async function screenshot(page, file) {
  await page.screenshot({ path: join(SAMPLES, file), fullPage: true });
  summary.push(`  screenshot docs/samples/${file}`);
}

/** Tabs from the top of the page until `target` has focus; answers the stops (fails after `max`). */
async function tabTo(page, target, max = 30) {
  await page.evaluate(() => {
    document.activeElement?.blur();
    window.getSelection()?.removeAllRanges();
  });
  const stops = [];
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    const stop = await page.evaluate((selector) => {
      const el = document.activeElement;
      if (!el || el === document.body) return null;
      const text = (el.labels?.[0]?.textContent ?? el.textContent ?? '').replace(/\s+/g, ' ').trim().slice(0, 40);
      return { at: el.matches(selector), what: `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.type && el.tagName === 'INPUT' ? `[${el.type}]` : ''}${text ? ` "${text}"` : ''}` };
    }, target);
    if (!stop) continue;
    stops.push(stop.what);
    if (stop.at) return stops;
  }
  check(false, `Tab did not reach ${target} within ${max} presses (stops: ${stops.join(' → ')})`);
  return stops;
}

/** Clicks and then waits for the navigation the click starts. */
async function clickAndWait(page, selector) {
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click(selector)]);
}

const scopeState = (page) => page.$$eval('input[name="scope"]', (boxes) => Object.fromEntries(boxes.map((b) => [b.value, b.checked])));

async function main() {
  const persistTo = await mkdtemp(join(tmpdir(), 'posture-oauth-pages-'));
  const profile = await mkdtemp(join(tmpdir(), 'posture-chromium-'));
  let dev;
  let browser;
  let callback;
  try {
    ensureDevVars();
    console.error('Applying migrations and starting wrangler dev on', BASE, '...');
    await wrangler(['d1', 'migrations', 'apply', 'DB', '--local', '--persist-to', persistTo]);
    dev = startWranglerDev({ port: PORT, persistTo, group: true, pipe: true, vars: { API_URL: BASE } });
    dev.stdout.on('data', (d) => (logs += d));
    dev.stderr.on('data', (d) => (logs += d));
    await waitForService(BASE);
    const demo = await devCall(BASE, '/api/v1/dev/seed');

    // The client's side, from the real discovery documents: register, then an authorize URL with PKCE.
    callback = await callbackServer();
    const redirectUri = `http://127.0.0.1:${callback.port}/callback`;
    const resourceMeta = await (await fetch(`${BASE}/.well-known/oauth-protected-resource/mcp`)).json();
    const serverMeta = await (await fetch(`${resourceMeta.authorization_servers[0]}/.well-known/oauth-authorization-server`)).json();
    const registered = await fetch(serverMeta.registration_endpoint, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Claude Desktop', redirect_uris: [redirectUri], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] }),
    });
    if (registered.status !== 201) throw new Error(`registration: ${registered.status} ${await registered.text()}`);
    const clientId = (await registered.json()).client_id;
    const verifier = base64url(randomBytes(32));
    const challenge = base64url(createHash('sha256').update(verifier).digest());
    const state = base64url(randomBytes(12));
    const authorizeUrl = `${serverMeta.authorization_endpoint}?${new URLSearchParams({
      response_type: 'code', client_id: clientId, redirect_uri: redirectUri, code_challenge: challenge, code_challenge_method: 'S256', state, resource: resourceMeta.resource,
    })}`;

    browser = await puppeteer.launch({
      executablePath: CHROMIUM, headless: true, userDataDir: profile, defaultViewport: VIEWPORT,
      // As root (containers) Chromium needs --no-sandbox; /dev/shm may be small there.
      args: ['--no-sandbox', '--disable-dev-shm-usage', '--no-first-run', '--no-default-browser-check'],
    });
    const page = await browser.newPage();
    await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'light' }]);
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console error on ${page.url().split('?')[0]}: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error on ${page.url().split('?')[0]}: ${error.message}`));
    summary.push(`Chromium ${await browser.version()}, client ${clientId}, redirect ${redirectUri}`);

    // 1. Sign in: the email form.
    const opened = await page.goto(authorizeUrl, { waitUntil: 'load' });
    check(opened.status() === 200, `GET /authorize answered ${opened.status()}`);
    await checkPage(page, 'sign-in');
    await screenshot(page, 'mcp-sign-in.png');
    const signInStops = await tabTo(page, 'button[type="submit"]');
    check(signInStops[0]?.startsWith('input#email'), `sign-in: the first Tab stop is ${signInStops[0]} (want the email field)`);
    summary.push(`  Tab: ${signInStops.join(' → ')}`);
    await page.click('#email');
    await page.keyboard.type(demo.adminEmail, { delay: 5 });
    const offset = logs.length;
    await clickAndWait(page, 'button[type="submit"]');

    // 2. Check your email.
    await checkPage(page, 'check-email');
    check((await page.content()).includes(demo.adminEmail), 'check-email: the address typed is not shown');
    await screenshot(page, 'mcp-check-email.png');

    // 3. The emailed link, opened in the same browser: Continue.
    const email = await nextEmail(offset);
    const link = email.text.match(/https?:\/\/\S+\/authorize\/continue\?\S+/)?.[0];
    if (!link) throw new Error(`no sign-in link in ${email.path}`);
    check(link.startsWith(`${BASE}/authorize/continue?`), `the emailed link does not start with ${BASE}: ${link.slice(0, 80)}`);
    summary.push(`email ${email.path}`);
    check(!new URL(link).searchParams.has('token') && new URL(link).hash.startsWith('#token='), `the emailed link does not carry its token in the fragment: ${link.slice(0, 80)}`);
    const continued = await page.goto(link, { waitUntil: 'load' });
    check(continued.status() === 200, `GET /authorize/continue answered ${continued.status()}`);
    // The page's script moved the token from the fragment into the form, and out of the address bar.
    check((await page.$eval('input[name="token"]', (i) => i.value)).length > 20, 'continue: the token field is empty (the script did not run)');
    check(!page.url().includes('#'), `continue: the fragment is still in the address bar: ${page.url().slice(0, 80)}`);
    await checkPage(page, 'continue');
    await screenshot(page, 'mcp-continue.png');
    summary.push(`  Tab: ${(await tabTo(page, 'button[type="submit"]')).join(' → ')}`);
    await clickAndWait(page, 'button[type="submit"]');

    // 4. Approve: the organization, the scopes (defaults first), Deny / Allow.
    await checkPage(page, 'approve');
    const defaults = await scopeState(page);
    check(JSON.stringify(defaults) === JSON.stringify({ 'docs:read': true, 'project:read': true, 'project:write': false, 'credentials:create': false }), `approve: unexpected default ticks ${JSON.stringify(defaults)}`);
    await screenshot(page, 'mcp-approve.png');
    const approveStops = await tabTo(page, 'button[value="approve"]');
    summary.push(`  Tab: ${approveStops.join(' → ')}`);
    const boxId = (scope) => page.$eval(`input[name="scope"][value="${scope}"]`, (b) => b.id);
    // Real clicks: the write scope's label ticks it, its box unticks it, then ticks it again; docs:read is unticked.
    const write = await boxId('project:write');
    await page.click(`label[for="${write}"]`);
    check((await scopeState(page))['project:write'] === true, 'approve: clicking the label of "project:write" did not tick it');
    await page.click(`#${write}`);
    check((await scopeState(page))['project:write'] === false, 'approve: clicking the ticked "project:write" box did not untick it');
    await page.click(`#${write}`);
    await page.click(`#${await boxId('docs:read')}`);
    const ticked = await scopeState(page);
    check(JSON.stringify(ticked) === JSON.stringify({ 'docs:read': false, 'project:read': true, 'project:write': true, 'credentials:create': false }), `approve: ticks after the clicks ${JSON.stringify(ticked)}`);
    summary.push(`  ticked with clicks: ${Object.keys(ticked).filter((s) => ticked[s]).join(', ')}`);
    await clickAndWait(page, 'button[value="approve"]');

    // 5. The redirect reached the assistant's listener: exchange its code.
    const returned = await Promise.race([callback.code, sleep(10_000).then(() => null)]);
    if (!returned) throw new Error(`Allow did not redirect to ${redirectUri} (the browser is at ${page.url()})`);
    check(page.url().startsWith(redirectUri), `after Allow the browser is at ${page.url()}`);
    check(returned.state === state, `the redirect's state ${returned.state} is not the one sent`);
    const tokenRes = await fetch(serverMeta.token_endpoint, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: returned.code, redirect_uri: redirectUri, client_id: clientId, code_verifier: verifier, resource: resourceMeta.resource }),
    });
    const tokens = await tokenRes.json();
    check(tokenRes.status === 200, `token exchange answered ${tokenRes.status} ${JSON.stringify(tokens)}`);
    check(tokens.scope === 'project:read project:write', `the token's scope is "${tokens.scope}" (want what was ticked: project:read project:write)`);
    summary.push(`token: ${tokens.token_type} for ${tokens.expires_in} s, scope "${tokens.scope}", refresh token ${tokens.refresh_token ? 'issued' : 'missing'}`);
    const listed = await fetch(`${BASE}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'check-oauth-pages', version: '1' } } }),
    });
    check(listed.status === 200, `POST /mcp initialize with the access token answered ${listed.status}`);
    summary.push(`MCP initialize with the access token: ${listed.status}`);
  } finally {
    await browser?.close().catch(() => undefined);
    callback?.server.close();
    if (dev?.pid && dev.exitCode === null) {
      const exited = new Promise((r) => dev.once('exit', r));
      try {
        process.kill(-dev.pid, 'SIGTERM');
      } catch {
        // gone already
      }
      await Promise.race([exited, sleep(10_000)]);
    }
    await rm(persistTo, { recursive: true, force: true });
    await rm(profile, { recursive: true, force: true });
  }
}

try {
  await main();
} catch (error) {
  problems.push(`failed: ${error.stack ?? error}`);
}
console.log(summary.join('\n'));
if (problems.length) {
  console.log(`\n${problems.length} problem(s):\n- ${problems.join('\n- ')}`);
  process.exitCode = 1;
} else {
  console.log('\nAll checks passed.');
}

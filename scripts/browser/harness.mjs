// Shared by `npm run test:browser` and `npm run screenshots`: the service started as `npm run dev` starts
// it (scripts/dev.mjs: migrations, starter vulnerability data, demo data) on a free port with a
// throwaway state, Debian's Chromium driven by playwright-core, signing in through the emailed link (the
// .eml file wrangler writes and logs), and the dashboard's pages found from its navigation.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { root } from '../local.mjs';
import { devReadyLines, pageKind, pageLinks, signInLinkOf } from './walk.mjs';

export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
export const DESKTOP = { width: 1280, height: 800 };
export const MOBILE = { width: 390, height: 844 };
export const NARROW = { width: 320, height: 640 };
/** At most this many kinds of page are visited. */
export const PAGE_CAP = Number(process.env.PAGE_CAP || 80);

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A port nothing listens on now ($TEST_BROWSER_PORT when set). */
export async function freePort() {
  if (process.env.TEST_BROWSER_PORT) return Number(process.env.TEST_BROWSER_PORT);
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  server.close();
  await once(server, 'close');
  return port;
}

/**
 * Starts `node scripts/dev.mjs` (PORT, PERSIST_TO in a new temporary directory) in a process group of
 * its own and waits for its last lines (the dashboard and a sign-in link): the demo data is seeded then.
 */
export async function startService({ log = () => {} } = {}) {
  const port = await freePort();
  const persistTo = await mkdtemp(join(tmpdir(), 'posture-browser-'));
  const child = spawn(process.execPath, [join(root, 'scripts/dev.mjs')], {
    cwd: root, env: { ...process.env, PORT: String(port), PERSIST_TO: persistTo }, stdio: ['ignore', 'pipe', 'pipe'], detached: true,
  });
  let output = '';
  let exited = null;
  const take = (d) => {
    output += d;
    for (const line of String(d).split('\n')) if (/^Demo data|^Demo portfolio|^Posture service ready|gave up|failed/.test(line)) log(line);
  };
  child.stdout.on('data', take);
  child.stderr.on('data', take);
  child.on('exit', (code) => (exited = code ?? 'signal'));
  const stop = async () => {
    if (exited === null) {
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {}
      for (let i = 0; i < 50 && exited === null; i++) await sleep(100);
      if (exited === null) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {}
      }
    }
    await rm(persistTo, { recursive: true, force: true });
  };
  const deadline = Date.now() + Number(process.env.DEV_START_TIMEOUT_MS || 600_000);
  let ready;
  while (!(ready = devReadyLines(output))) {
    if (exited !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`npm run dev ${exited !== null ? `exited (${exited})` : 'did not finish seeding in time'}; its last output:\n${output.slice(-3000)}`);
    }
    await sleep(250);
  }
  if (/gave up after|failed to upload/.test(output)) log('warning: the demo data was not seeded completely (see the lines above)');
  /** The next email wrangler reports after `offset` characters of output. */
  const nextEmail = async (offset, timeoutMs = 15_000) => {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const path = output.slice(offset).match(/send_email binding called[^\n]*\n(?:\s*Email:)?\s*(\S+\.eml)/)?.[1];
      if (path) return readFile(path, 'utf8');
      if (Date.now() > until) throw new Error(`wrangler logged no email within ${timeoutMs / 1000} s`);
      await sleep(100);
    }
  };
  return { port, dashboard: ready.dashboard, devLink: ready.link, origin: new URL(ready.dashboard).origin, output: () => output, nextEmail, stop };
}

/** Node's fetch of a dashboard page: to 127.0.0.1 with the dashboard's Host header (Node does not resolve dashboard.localhost). */
export async function fetchDashboard(service, path, init = {}) {
  const { request } = await import('node:http');
  const host = new URL(service.dashboard).host;
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: service.port, path, method: init.method ?? 'GET', headers: { host, ...init.headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

export function launch() {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-background-networking'] });
}

/**
 * A page that records console errors, uncaught errors and CSP violations (a `securitypolicyviolation`
 * listener added before any page script) into `problems`, each with the address it happened on.
 */
export async function watchedPage(context, problems) {
  const page = await context.newPage();
  // Headless Chromium hands window focus to one page at a time, and a page that loses it (another page
  // of the run, a download) takes no key presses: this page behaves as focused whatever else happens.
  const cdp = await context.newCDPSession(page);
  await cdp.send('Emulation.setFocusEmulationEnabled', { enabled: true });
  const where = () => page.url().replace(/#.*$/, '');
  await page.exposeBinding('__postureCspViolation', (_source, v) => problems.push(`${where()}: CSP violation of ${v.directive} (${v.blocked || 'inline'}${v.sample ? `: ${v.sample}` : ''}) at ${v.source || '?'}:${v.line}`));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      window.__postureCspViolation({ directive: e.violatedDirective, blocked: e.blockedURI, sample: e.sample, source: e.sourceFile, line: e.lineNumber });
    }, true);
  });
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    // A page answering 404 or 503 on purpose: its status is checked where it is visited.
    if (/^Failed to load resource/.test(message.text()) && message.location().url.replace(/#.*$/, '') === where()) return;
    problems.push(`${where()}: console error: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`${where()}: uncaught ${error.message}`));
  return page;
}

/** Signs in as a person does: the email form, the link from the .eml file wrangler wrote, Continue. */
export async function signInByEmail(page, service, email) {
  await page.goto(`${service.dashboard}/sign-in`, { waitUntil: 'load' });
  await page.getByLabel(/email/i).fill(email);
  const offset = service.output().length;
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.locator('#email-form button[type="submit"]').click()]);
  const link = signInLinkOf(await service.nextEmail(offset));
  if (!link) throw new Error('the sign-in email holds no dashboard link');
  await openSignInLink(page, link);
}

/** Opens a sign-in link and presses its Continue button; answers the page it leads to. */
export async function openSignInLink(page, link) {
  await page.goto(link, { waitUntil: 'load' });
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.getByRole('button', { name: 'Continue signing in' }).click()]);
  return page.url();
}

/** Picks a theme with the header's theme control (the display cookie keeps it). */
export async function chooseTheme(page, theme) {
  await page.locator('#theme').selectOption(theme);
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.locator('form[action="/preferences/theme"] button[type="submit"]').click()]);
}

/** A page's links: `href`, whether it downloads, and for links in a table the table and column (one of each stands for the rows). */
const linksOf = (page) => page.$$eval('header a[href], nav a[href], main a[href]', (anchors) => anchors.map((a) => {
  const cell = a.closest('td, th');
  const table = a.closest('table');
  const group = table && cell ? `${[...document.querySelectorAll('table')].indexOf(table)}:${cell.cellIndex}` : null;
  return { href: a.href, download: a.hasAttribute('download'), group };
}));

/**
 * The signed-in dashboard's pages, from `start` through the navigation and each page's links (same
 * origin, GET, one address per kind of page, at most PAGE_CAP): `{ url, kind, status, title, h1 }`.
 */
export async function discoverPages(page, start, origin, { skipped = [] } = {}) {
  const queue = [start];
  const kinds = new Set();
  const found = [];
  while (queue.length && found.length < PAGE_CAP) {
    const url = queue.shift();
    const kind = pageKind(url);
    if (kinds.has(kind)) continue;
    kinds.add(kind);
    let response;
    try {
      response = await page.goto(url, { waitUntil: 'load' });
    } catch (error) {
      skipped.push(`${url}: ${String(error.message).split('\n')[0]}`);
      continue;
    }
    const type = response?.headers()['content-type'] ?? '';
    if (!type.includes('text/html')) {
      skipped.push(`${url}: ${type || 'no answer'}`);
      continue;
    }
    const status = response.status();
    const finalUrl = page.url().replace(/#.*$/, '');
    // A redirect to a page already found (`/` leads to the project's overview).
    if (pageKind(finalUrl) !== kind && kinds.has(pageKind(finalUrl))) continue;
    const facts = await page.evaluate(() => ({ title: document.title, h1: [...document.querySelectorAll('h1')].map((h) => h.textContent.replace(/\s+/g, ' ').trim()) }));
    found.push({ url: finalUrl, kind: pageKind(finalUrl), status, ...facts });
    kinds.add(pageKind(finalUrl));
    // A page not built yet (404) still shows the frame's navigation.
    if (status < 500) for (const link of pageLinks(await linksOf(page), origin)) if (!kinds.has(pageKind(link))) queue.push(link);
  }
  return found;
}

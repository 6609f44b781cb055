// The journeys `npm run test:browser` takes after its page walk (issue 21, "Accessibility and keyboard"
// and "Tests: In a real browser"):
// - keyboardJourney: with keys only (Tab, Shift+Tab, Enter, Space, arrows and typed text; no clicks, no
//   fill), sign in through the emailed link, switch project with the header's switcher, open a report and
//   search it, download its PDF, tick two ranked fixes and simulate, rate a subject and find the rating in
//   its history; every control acted on shows a visible focus indicator, every Tab stop on the way draws one;
// - exportDownloads: every export format a report offers, downloaded through the dashboard, first bytes checked;
// - liveUpload: a bundle uploaded with the CLI while the surveys page is open appears there without a reload.
// Each answers nothing and reports through `problems` (failures) and `notes` (what was skipped or measured).
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { root } from '../local.mjs';
import { DESKTOP, watchedPage } from './harness.mjs';
import { EXPORT_FORMATS, exportProblem, focusVisible, signInLinkOf } from './walk.mjs';

/** Tab presses at most to reach one control. */
const MAX_PRESSES = 120;
/** The second project the switcher switches to. */
const SECOND_PROJECT = 'Keyboard journey';
/** The bundle the live upload sends (small), and how long its row may take to appear. */
const LIVE_BUNDLE = 'test/fixtures/cbom/pkic-cbom__nginx-pass.cbom.json';
// In `npm test` the browser part runs beside the workerd files on two cores: the CLI's start and the
// upload can take a while there (one fresh-clone run missed 15 s). Still without a reload.
const LIVE_WITHIN_MS = 30_000;

class JourneyStop extends Error {}

/** The API of the started service as the demo admin (a session from the dev-only endpoint). */
async function adminApi(service) {
  const { devCall, localBase } = await import('../local.mjs');
  const base = localBase(service.port);
  const { jwt } = await devCall(base, '/api/v1/dev/session');
  return async (method, path, body) => {
    const res = await fetch(`${base}${path}`, { method, headers: { authorization: `Bearer ${jwt}`, 'content-type': 'application/json' }, body: body && JSON.stringify(body) });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
    return text ? JSON.parse(text) : null;
  };
}

/** The focused element described, and its outline and shadow (run in the page). */
function focusedFacts() {
  const el = document.activeElement;
  if (!el || el === document.body || el === document.documentElement) return null;
  const s = getComputedStyle(el);
  const label = (el.getAttribute('aria-label') || el.labels?.[0]?.textContent || el.textContent || el.value || '').replace(/\s+/g, ' ').trim().slice(0, 50);
  return {
    what: `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${label ? ` "${label}"` : ''}`,
    style: { outlineStyle: s.outlineStyle, outlineWidth: s.outlineWidth, outlineColor: s.outlineColor, boxShadow: s.boxShadow },
  };
}

const NOTHING_DRAWN = { outlineStyle: 'none', outlineWidth: '0px', outlineColor: 'transparent', boxShadow: 'none' };

/**
 * Keys only: the journey's page with helpers that press keys and check focus. `problems` gets a line for
 * every control without a visible focus indicator; a control that cannot be reached stops the journey.
 */
function keys(page, problems) {
  const where = () => new URL(page.url()).pathname;
  /**
   * Whether the focused element matches `target`: `selector` (CSS), `text` (a regular expression's source
   * for its label) and `row` (one for the text of the table row it sits in).
   */
  const focusedIs = (target) => page.evaluate(({ selector, text, row }) => {
    const el = document.activeElement;
    if (!el || !el.matches(selector)) return false;
    const label = (el.getAttribute('aria-label') || el.labels?.[0]?.textContent || el.textContent || el.value || '').replace(/\s+/g, ' ').trim();
    if (row && !new RegExp(row, 'i').test(el.closest('tr')?.textContent ?? '')) return false;
    return !text || new RegExp(text, 'i').test(label);
  }, { selector: target.selector, text: target.text ?? null, row: target.row ?? null });

  /** The focused control shows focus: its outline or shadow focused differs from unfocused (blurred, measured, focused again). */
  const expectFocusRing = async (what) => {
    const facts = await page.evaluate(focusedFacts);
    if (!facts) throw new JourneyStop(`${what}: nothing has focus on ${where()}`);
    const unfocused = await page.evaluate(() => {
      const el = document.activeElement;
      el.blur();
      const s = getComputedStyle(el);
      const style = { outlineStyle: s.outlineStyle, outlineWidth: s.outlineWidth, outlineColor: s.outlineColor, boxShadow: s.boxShadow };
      el.focus();
      return style;
    });
    if (!focusVisible(facts.style, unfocused)) problems.push(`keyboard journey, ${what}: no visible focus indicator on ${facts.what} at ${where()} (${JSON.stringify(facts.style)})`);
    return facts;
  };

  /**
   * Presses Tab (Shift+Tab with `back`) until `target` has focus, checking that every stop on the way
   * draws a focus indicator, then that the target's is visible. Throws when it is not reached.
   */
  const tabTo = async (target, what, { back = false } = {}) => {
    const seen = [];
    for (let i = 0; i <= MAX_PRESSES; i++) {
      if (await focusedIs(target)) {
        await expectFocusRing(what);
        return;
      }
      if (i === MAX_PRESSES) break;
      await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
      const stop = await page.evaluate(focusedFacts);
      if (!stop) continue;
      seen.push(stop.what);
      if (!focusVisible(stop.style, NOTHING_DRAWN)) problems.push(`keyboard journey, on the way to ${what}: ${stop.what} at ${where()} draws no focus indicator`);
    }
    throw new JourneyStop(`${what}: ${MAX_PRESSES} presses of ${back ? 'Shift+Tab' : 'Tab'} on ${where()} never reached ${target.selector}${target.text ? ` "${target.text}"` : ''} (last stops: ${seen.slice(-8).join(' → ')})`);
  };

  /** Enter (or another key) on the focused control, waiting for the page it leads to. */
  const pressAndLoad = async (key = 'Enter') => {
    await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.keyboard.press(key)]);
  };

  /** Arrow keys on the focused <select> until the option whose text matches `text` is chosen (down first, then up). */
  const choose = async (text, what) => {
    const chosen = () => page.evaluate((t) => new RegExp(t, 'i').test(document.activeElement?.selectedOptions?.[0]?.textContent ?? ''), text);
    for (const key of ['ArrowDown', 'ArrowUp']) {
      for (let i = 0; i < 20 && !(await chosen()); i++) await page.keyboard.press(key);
      if (await chosen()) return;
    }
    throw new JourneyStop(`${what}: the arrow keys never chose "${text}" on ${where()}`);
  };

  return { tabTo, pressAndLoad, choose, expectFocusRing, focusedIs, where };
}

const textOf = (page, selector) => page.evaluate((s) => document.querySelector(s)?.innerText.replace(/\s+/g, ' ').trim() ?? '', selector);

/** Runs the journey's steps in order; the first that fails stops it (the later ones need it). */
async function steps(list, problems, say) {
  for (const [name, run] of list) {
    const started = Date.now();
    try {
      await run();
      say(`  keyboard journey: ${name} (${Date.now() - started} ms)`);
    } catch (error) {
      problems.push(`keyboard journey stopped at "${name}": ${error instanceof JourneyStop ? error.message : (error.stack ?? error)}`);
      return false;
    }
  }
  return true;
}

/**
 * Sign-in → switch project → search a report → download its PDF → simulate two fixes → rate a subject,
 * with keys only. Creates a second project first (through the API) so that the switch is a real one.
 * Answers the address of the report it searched (the export check downloads its formats), or null.
 */
export async function keyboardJourney({ browser, service, email, problems, notes, say }) {
  const call = await adminApi(service);
  const orgId = /Demo organization (\S+),/.exec(service.output())?.[1];
  if (!orgId) throw new Error('npm run dev printed no demo organization');
  // Made once: a state kept from an earlier run has it already.
  const listed = await call('GET', `/api/v1/org/${orgId}/project`);
  const projects = Array.isArray(listed) ? listed : (listed.projects ?? []);
  const second = projects.find((p) => p.name === SECOND_PROJECT) ?? (await call('POST', `/api/v1/org/${orgId}/project`, { name: SECOND_PROJECT }));

  const context = await browser.newContext({ viewport: DESKTOP, acceptDownloads: true });
  const page = await watchedPage(context, problems);
  const k = keys(page, problems);
  const { tabTo, pressAndLoad, choose } = k;
  let demoProject = null;
  let reportUrl = null;
  const rationale = `Rated from the keyboard at ${new Date().toISOString()}`;

  const done = await steps([
    ['sign in through the emailed link', async () => {
      await page.goto(`${service.dashboard}/sign-in`, { waitUntil: 'load' });
      await tabTo({ selector: 'input[type="email"]' }, 'the email field');
      await page.keyboard.type(email);
      await tabTo({ selector: '#email-form button[type="submit"]' }, 'the "Email me a sign-in link" button');
      const offset = service.output().length;
      await pressAndLoad();
      const link = signInLinkOf(await service.nextEmail(offset));
      if (!link) throw new JourneyStop('the sign-in email holds no dashboard link');
      // Opening the emailed link is the mail program's part; the page takes it from there.
      await page.goto(link, { waitUntil: 'load' });
      const continueButton = { selector: '#link-form button[type="submit"]', text: 'Continue signing in' };
      if (!(await k.focusedIs(continueButton))) notes.push('keyboard journey: the sign-in link\'s page did not put focus on Continue itself');
      // Reached by Tab: back out of it, then Tab again.
      await page.keyboard.press('Shift+Tab');
      await tabTo(continueButton, 'the Continue signing in button');
      await pressAndLoad();
      demoProject = /^\/projects\/([0-9a-f-]{36})/.exec(k.where())?.[1];
      if (!demoProject) throw new JourneyStop(`signing in led to ${k.where()}, not a project`);
    }],
    ['switch project with the header\'s switcher', async () => {
      for (const [name, id] of [[SECOND_PROJECT, second.uuid], ['Demo', demoProject]]) {
        await tabTo({ selector: '#project-switch' }, 'the project switcher');
        await choose(name, 'the project switcher');
        await tabTo({ selector: 'form[action="/projects/go"] button[type="submit"]' }, 'the switcher\'s Open button');
        await pressAndLoad();
        if (k.where() !== `/projects/${id}`) throw new JourneyStop(`Open with "${name}" chosen led to ${k.where()}, not /projects/${id}`);
        const shown = await page.evaluate(() => document.querySelector('#project-switch')?.selectedOptions[0]?.textContent ?? '');
        if (!new RegExp(name, 'i').test(shown)) throw new JourneyStop(`after switching to "${name}" the switcher shows "${shown}"`);
      }
    }],
    ['open a report and search it', async () => {
      await tabTo({ selector: 'nav.nav a', text: '^Reports$' }, 'the Reports link');
      await pressAndLoad();
      await tabTo({ selector: 'main a[href*="/reports/"]', text: 'Cryptography bill of materials', row: 'payments-gateway' }, 'the CBOM report of the payments-gateway survey');
      await pressAndLoad();
      reportUrl = page.url();
      await tabTo({ selector: '#report-search' }, 'the report\'s search field');
      await page.keyboard.type('ML-KEM');
      // htmx swaps the matches in as one types (no Enter needed), and puts the search in the address.
      await page.waitForFunction(() => /match(?:es)? for “ML-KEM”/.test(document.querySelector('#report-results')?.textContent ?? ''), null, { timeout: 10_000 })
        .catch(() => { throw new JourneyStop('typing "ML-KEM" showed no matches in #report-results within 10 s'); });
      const rows = await page.$$eval('#report-results tbody tr', (trs) => trs.map((tr) => tr.textContent));
      // Aliases match too (Kyber768 is ML-KEM-768's former name).
      if (!rows.some((r) => /ML-KEM/i.test(r))) throw new JourneyStop(`the matches for ML-KEM are ${JSON.stringify(rows.slice(0, 3))}`);
      if (!/[?&]q=ML-KEM/.test(page.url())) problems.push(`keyboard journey: the search is not in the address (${page.url()})`);
    }],
    ['download the PDF', async () => {
      await tabTo({ selector: 'ul.downloads a[href$="/export/pdf"]' }, 'the PDF download', { back: true });
      const [download] = await Promise.all([page.waitForEvent('download', { timeout: 30_000 }), page.keyboard.press('Enter')]);
      const problem = exportProblem('pdf', await readFile(await download.path()));
      if (problem) throw new JourneyStop(problem);
    }],
    ['tick two ranked fixes and simulate', async () => {
      await tabTo({ selector: 'nav.nav a', text: '^Portfolios$' }, 'the Portfolios link', { back: true });
      await pressAndLoad();
      await tabTo({ selector: 'main a[href*="/portfolios/"]', text: 'Customer-facing' }, 'the demo portfolio');
      await pressAndLoad();
      await tabTo({ selector: 'main a[href$="/fixes"]' }, 'the ranked fixes link');
      await pressAndLoad();
      for (const box of ['#row-1', '#row-2']) {
        await tabTo({ selector: box }, `the tick of fix ${box.slice(5)}`);
        await page.keyboard.press('Space');
        if (!(await page.evaluate((s) => document.querySelector(s).checked, box))) throw new JourneyStop(`Space did not tick ${box}`);
      }
      // Back up to the Simulate button above the table (the one below is past every row's ticks).
      await tabTo({ selector: 'button[name="simulate"]' }, 'the Simulate button', { back: true });
      await page.keyboard.press('Enter');
      await page.waitForFunction(() => /Simulated 2 fixes: .* projected/.test(document.querySelector('#simulation')?.textContent ?? ''), null, { timeout: 20_000 })
        .catch(async () => { throw new JourneyStop(`no projected result after Simulate: "${(await textOf(page, '#simulation')).slice(0, 200)}"`); });
      // The result is announced: a polite live region says it too.
      const announced = await page.evaluate(() => [...document.querySelectorAll('[aria-live="polite"]')].some((el) => /Simulated 2 fixes/.test(el.textContent)));
      if (!announced) problems.push('keyboard journey: no polite live region announces the simulation result');
    }],
    ['rate a subject and see it in the rating history', async () => {
      await tabTo({ selector: 'nav.nav a', text: '^Subjects$' }, 'the Subjects link', { back: true });
      await pressAndLoad();
      await tabTo({ selector: 'main a[href*="/subjects/"]', text: '^nginx$' }, 'the nginx subject');
      await pressAndLoad();
      await tabTo({ selector: '#rating-value' }, 'the criticality select');
      await choose('^medium$', 'the criticality select');
      await tabTo({ selector: '#rating-rationale' }, 'the rationale field');
      await page.keyboard.type(rationale);
      await tabTo({ selector: 'button[type="submit"]', text: '^Save rating$' }, 'the Save rating button');
      await pressAndLoad();
      const first = await page.evaluate(() => {
        const caption = [...document.querySelectorAll('caption')].find((c) => /^Ratings/.test(c.textContent));
        return caption?.closest('table').querySelector('tbody tr')?.textContent.replace(/\s+/g, ' ') ?? '';
      });
      if (!first.includes(rationale) || !/medium/.test(first)) throw new JourneyStop(`the rating history's newest row is "${first.slice(0, 200)}", not medium with the rationale`);
    }],
  ], problems, say);
  await context.close();
  return done ? reportUrl : null;
}

/** Downloads every export format the report's page offers through the dashboard and checks each file's first bytes. */
export async function exportDownloads({ browser, context, reportUrl, problems, say }) {
  const page = await watchedPage(context, problems);
  const offered = async () => {
    await page.goto(reportUrl, { waitUntil: 'load' });
    return page.$$eval('ul.downloads a[download]', (as) => as.map((a) => a.href));
  };
  // Rendered documents are made on a queue after the survey: the page lists those ready.
  let links = await offered();
  for (let i = 0; i < 20 && links.length < EXPORT_FORMATS.length; i++) {
    await page.waitForTimeout(1000);
    links = await offered();
  }
  const formats = links.map((href) => /\/export\/([a-z]+)$/.exec(href)?.[1]);
  const missing = EXPORT_FORMATS.filter((f) => !formats.includes(f));
  if (missing.length) problems.push(`exports: ${reportUrl} offers no ${missing.join(', ')} download`);
  const sizes = [];
  for (const format of formats) {
    const [download] = await Promise.all([page.waitForEvent('download', { timeout: 30_000 }), page.click(`ul.downloads a[href$="/export/${format}"]`)]);
    const failure = await download.failure();
    if (failure) {
      problems.push(`exports: the ${format} download failed: ${failure}`);
      continue;
    }
    const bytes = await readFile(await download.path());
    const problem = exportProblem(format, bytes);
    if (problem) problems.push(`exports: ${problem} (${download.suggestedFilename()})`);
    sizes.push(`${format} ${download.suggestedFilename()} ${bytes.length} B`);
  }
  await page.close();
  say(`  exports: ${sizes.join(', ')}`);
  void browser;
}

/**
 * The surveys page open, a bundle uploaded with the CLI (an upload pass from the API): its target's
 * row appears in the page's main content without a reload within LIVE_WITHIN_MS. Skipped with a note
 * while `/projects/{id}/surveys` answers 404 (the area not merged yet).
 */
export async function liveUpload({ context, service, projectId, problems, notes, say }) {
  const page = await watchedPage(context, problems);
  const surveys = `${service.dashboard}/projects/${projectId}/surveys`;
  const response = await page.goto(surveys, { waitUntil: 'load' });
  if (response?.status() === 404) {
    notes.push(`live upload skipped: ${new URL(surveys).pathname} answers 404 (the surveys area is not merged yet)`);
    await page.close();
    return;
  }
  if (response?.status() !== 200) {
    problems.push(`live upload: ${new URL(surveys).pathname} answered ${response?.status()}`);
    await page.close();
    return;
  }
  const call = await adminApi(service);
  const { jwt: pass } = await call('POST', `/api/v1/project/${projectId}/credential/spice-pass`, { duration_days: 1 });
  const target = `live-${Date.now().toString(36)}`;
  // Marks this document: a reload would lose it.
  await page.evaluate(() => (window.__sameDocument = true));
  const base = `http://127.0.0.1:${service.port}`;
  const started = Date.now();
  const cli = spawn(process.execPath, [join(root, 'cli/posture.mjs'), 'upload', join(root, LIVE_BUNDLE), '--api', base, '--project', projectId, '--target', target, '--tag', 'browser-test', '--json'], {
    cwd: root, env: { ...process.env, POSTURE_PASS: pass }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let cliOutput = '';
  cli.stdout.on('data', (d) => (cliOutput += d));
  cli.stderr.on('data', (d) => (cliOutput += d));
  const exited = new Promise((resolve) => cli.on('close', resolve));
  const appeared = await page.waitForFunction((t) => document.querySelector('main')?.innerText.includes(t), target, { timeout: LIVE_WITHIN_MS })
    .then(() => Date.now() - started, () => null);
  const code = await exited;
  if (code !== 0) problems.push(`live upload: the CLI exited with ${code}: ${cliOutput.slice(-500)}`);
  if (appeared === null) problems.push(`live upload: "${target}" did not appear on the open surveys page within ${LIVE_WITHIN_MS / 1000} s of starting the upload`);
  else if (!(await page.evaluate(() => window.__sameDocument === true))) problems.push('live upload: the surveys page reloaded to show the new survey');
  else say(`  live upload: "${target}" appeared on the open surveys page ${appeared} ms after the CLI started`);
  if (appeared !== null) notes.push(`live upload: the new survey appeared ${(appeared / 1000).toFixed(1)} s after the CLI started`);
  await page.close();
}

// The dashboard's portfolio, ranked-fix and subject pages (issue 21, pages 5 to 7) on DASHBOARD_HOST,
// against real surveys of fixture SBOMs and a CBOM, scored by the scoring queue's own consumer: the
// numbers on the pages are the API's (state, history, rank, simulate), forms change what the API says,
// and a Viewer, another organization, a missing cookie and another site are refused.
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OsvRecord } from '../../src/analysis/vulns/osv-types';
import { projectStub } from '../../src/project/client';
import { importRecords } from '../../src/vulndb/import';
import mastercard from '../fixtures/cbom/mastercard-client-encryption-java__cbom.json?raw';
import { expectPage, fragmentOf, h1Of, page, post, signInThroughDashboard, submit, textOf, unescape, visit } from '../dashboard';
import { api, json, newTenant } from '../helpers';
import { dataTenant } from '../data-plane';
import { addPerson } from '../people';
import { analysed, letRendersFinish, letScoringFinish, P, sbom, settleScoring } from '../pipeline';

const advisories = import.meta.glob('../fixtures/osv/*.json', { import: 'default', eager: true }) as Record<string, OsvRecord>;

type T = Awaited<ReturnType<typeof dataTenant>>;
let t: T;
let other: Awaited<ReturnType<typeof newTenant>>;
let owner: string;
let viewer: string;
let implicitId: string;

const portfolioApi = (id = '') => `${P(t.projectId)}/v1/portfolio${id ? `/${id}` : ''}`;
const pages = (rest = '') => `/projects/${t.projectId}${rest}`;
const read = async (path: string) => json(await api(path, { token: t.token }));
const one = (n: number | null) => (n == null ? '–' : n.toFixed(1));
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const pair = (a: string, b: string) => `${encodeURIComponent(a)} ${encodeURIComponent(b)}`;

beforeAll(async () => {
  await importRecords(env.DB, Object.values(advisories), 'test');
  t = await dataTenant('dash-portfolios');
  const shop = JSON.parse(sbom('shop', [['lodash', '4.17.15'], ['ws', '7.4.0'], ['node-forge', '0.10.0'], ['left-pad', '1.3.0']]));
  for (const c of shop.components) c['bom-ref'] = c.purl;
  shop.dependencies = [{ ref: 'pkg:npm/node-forge@0.10.0', dependsOn: ['pkg:npm/lodash@4.17.15'] }];
  await analysed(t, JSON.stringify(shop));
  await analysed(t, mastercard, { target: 'cards' });
  // A subject whose name has a slash, as npm scopes do.
  await analysed(t, sbom('@acme/web', [['ws', '7.4.0']]));
  await settleScoring(t);
  implicitId = (await read(portfolioApi())).portfolios.find((p: any) => p.is_implicit).portfolio_id;
  owner = await signInThroughDashboard(t.user.email);
  const v = await addPerson(t, 'Viewer', 'dash-viewer');
  viewer = await signInThroughDashboard(v.user.email);
  other = await newTenant('dash-elsewhere');
}, 90_000);

afterAll(async () => {
  await letScoringFinish([t]);
  await letRendersFinish([t]);
});

/** Holds the portfolio's scoring back in the state a change leaves (as test/portfolios.test.ts does), runs `check`, then asks for it again. */
async function whileUnscored(portfolioId: string, check: () => Promise<void>) {
  const stub = projectStub(env, t.projectId);
  await runInDurableObject(stub, (_i, state) => {
    state.storage.sql.exec("UPDATE portfolios SET status = 'unscored', generation = generation + 1 WHERE id = ?", portfolioId);
    state.storage.sql.exec('DELETE FROM scoring_work WHERE portfolio_id = ?', portfolioId);
  });
  await check();
  await runInDurableObject(stub, (_i, state) => {
    state.storage.sql.exec("INSERT OR REPLACE INTO scoring_work (portfolio_id, generation, cause, attempts, expires_at) SELECT id, generation, 'membership', 0, 0 FROM portfolios WHERE id = ?", portfolioId);
  });
  await settleScoring(t);
}

describe('the portfolio list', () => {
  it('lists the portfolios with their scores and bands, and offers the create form to a member', async () => {
    const html = await expectPage(await page(pages('/portfolios'), owner), 200, 'Portfolios');
    const builtIn = (await read(portfolioApi())).portfolios.find((p: any) => p.is_implicit);
    const text = textOf(html);
    expect(text).toContain(`All subjects (built in) 3 ${one(builtIn.score)} ${builtIn.band} scored`);
    expect(html).toContain(`href="/projects/${t.projectId}/portfolios/${implicitId}"`);
    expect(html).toMatch(new RegExp(`<form method="post" action="/projects/${t.projectId}/portfolios"`));
    expect(html).toContain('aria-current="page">Portfolios</a>');
    expect(html).not.toMatch(/\sstyle=/);
  });

  it('offers a Viewer no create form; without a cookie it leads to sign-in; another organization\'s project is a 404', async () => {
    const html = await expectPage(await page(pages('/portfolios'), viewer), 200, 'Portfolios');
    expect(html).not.toContain('method="post" action="/projects/');
    expect(textOf(html)).toContain('All subjects');
    const anonymous = await visit(pages('/portfolios'));
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.get('location')).toBe('/sign-in');
    for (const path of ['/portfolios', `/portfolios/${implicitId}`, `/portfolios/${implicitId}/fixes`, `/portfolios/${implicitId}/members`, '/subjects', '/subjects/shop']) {
      const res = await page(`/projects/${other.projectId}${path}`, owner);
      expect(res.status, path).toBe(404);
      const body = await res.text();
      expect(body).not.toContain('All subjects');
    }
    // An unknown portfolio of the person's own project: 404 too.
    expect((await page(pages(`/portfolios/${crypto.randomUUID()}`), owner)).status).toBe(404);
  });

  it('creates a portfolio from the form (subjects and packages), shows the API\'s 400 beside its field, and refuses a Viewer and another site', async () => {
    const blank = await submit(pages('/portfolios'), owner, { name: ' ', members: '' });
    const blankHtml = await expectPage(blank, 400, 'Portfolios');
    expect(blankHtml).toContain('id="field-name-error"');
    const versioned = await submit(pages('/portfolios'), owner, { name: 'Versioned', members: 'pkg:npm/lodash@4.17.15' });
    const versionedHtml = await expectPage(versioned, 400, 'Portfolios');
    expect(versionedHtml).toContain('id="field-members-error"');
    expect(versionedHtml).toContain('aria-invalid="true"');
    expect(unescape(versionedHtml)).toContain('Versioned');

    const before = (await read(portfolioApi())).portfolios.length;
    const forged = await submit(pages('/portfolios'), viewer, { name: 'Forged', members: 'shop' });
    expect(forged.status).toBe(403);
    expect(textOf(await forged.text())).toContain('project:edit');
    const elsewhere = await post(pages('/portfolios'), { name: 'Cross-site', members: 'shop' }, { cookie: owner, origin: 'https://evil.example' });
    expect(elsewhere.status).toBe(403);
    expect((await read(portfolioApi())).portfolios.length).toBe(before);

    const res = await submit(pages('/portfolios'), owner, { name: 'Web and shop', members: 'shop\npkg:npm/ws\n\nshop' });
    expect(res.status).toBe(303);
    const id = /\/portfolios\/([0-9a-f-]{36})$/.exec(res.headers.get('location')!)![1]!;
    const created = await read(portfolioApi(id));
    expect(created).toMatchObject({ name: 'Web and shop', members: [{ member_type: 'package', value: 'pkg:npm/ws' }, { member_type: 'subject', value: 'shop' }] });
    await settleScoring(t);
    expect((await read(portfolioApi(id))).scoring).toBe('scored');
  });
});

describe('a portfolio\'s page', () => {
  it('shows the state per axis, the per-subject breakdown and the history (a chart per axis and the same rows as a table), as the API answers them', async () => {
    const html = await expectPage(await page(pages(`/portfolios/${implicitId}`), owner), 200, 'All subjects');
    const text = textOf(html);
    const state = await read(`${portfolioApi(implicitId)}/state`);
    expect(text).toContain(`Overall score ${one(state.score.score)} ${state.score.band}`);
    for (const [axis, label, weight] of [['pqc', 'Post-quantum (pqc)', '40%'], ['vuln', 'Vulnerabilities (vuln)', '40%'], ['agility', 'Crypto agility (agility)', '20%']] as const) {
      const a = state.breakdown.axes[axis];
      expect(text).toContain(`${label} ${one(a.score)} ${a.band} ${weight} ${a.findings}`);
    }
    for (const s of state.breakdown.subjects) {
      expect(text).toContain(`${s.subject} ${s.criticality} ${s.weight} ${one(s.score)} ${s.band} ${one(s.axes.pqc)} ${one(s.axes.vuln)} ${one(s.axes.agility)}`);
    }
    expect(html).toContain(`href="/projects/${t.projectId}/subjects/%40acme%2Fweb"`);
    // The history: one chart per axis with the band thresholds, and a table of every movement.
    const { rows } = await read(`${portfolioApi(implicitId)}/history`);
    expect(rows.length).toBeGreaterThanOrEqual(3);
    expect(html.match(/<svg class="chart"/g)).toHaveLength(3);
    for (const band of ['strong ≥ 85', 'fair ≥ 65', 'weak ≥ 40']) expect(unescape(html)).toContain(band);
    expect(html).toMatch(/<title id="chart-vuln-title">Vulnerabilities \(vuln\) score history<\/title>/);
    expect(text).toContain(`of ${rows.length} movements`);
    const lastVuln = rows.filter((r: any) => r.axis === 'vuln').at(-1);
    expect(lastVuln.score).toBe(state.score.axes.vuln.score);
    const causeWords: Record<string, string> = { survey: 'a survey completed', membership: 'members changed', rating: 'a subject was rated', backfill: 'replayed past survey', snapshot: 'daily snapshot', 'vulnerability-data': 'new vulnerability data' };
    expect(text).toMatch(new RegExp(`vuln ${escapeRe(one(lastVuln.score))} (first|[+−]?\\d+\\.\\d) ${lastVuln.band} ${escapeRe(causeWords[lastVuln.cause]!)}`));
    // No style attributes (the CSP forbids inline styles): classes and SVG presentation attributes only.
    expect(html).not.toMatch(/\sstyle=/);
    expect(html).toContain('href="/projects/' + t.projectId + '/portfolios/' + implicitId + '/fixes"');
  });

  it('pages the per-subject breakdown and the history in the URL', async () => {
    const html = await expectPage(await page(pages(`/portfolios/${implicitId}?soffset=2`), owner), 200, 'All subjects');
    const state = await read(`${portfolioApi(implicitId)}/state`);
    expect(textOf(html)).toContain(`Showing 3–3 of 3 subjects`);
    expect(textOf(html)).toContain(state.breakdown.subjects[2].subject);
    expect(html).toContain(`href="/projects/${t.projectId}/portfolios/${implicitId}" rel="prev"`);
  });

  it('says in place that a portfolio is being scored, and refreshes itself', async () => {
    const created = await json(await api(portfolioApi(), { token: t.token, body: { name: 'Pending', members: ['cards'] } }));
    await settleScoring(t);
    await whileUnscored(created.portfolio_id, async () => {
      const res = await page(pages(`/portfolios/${created.portfolio_id}`), owner);
      const html = await expectPage(res, 200, 'Pending');
      expect(res.headers.get('refresh')).toBe('5');
      expect(textOf(html)).toContain('being scored for the first time. This page refreshes itself.');
      // The ranked fixes can't be read yet: the refreshing page of errors.ts.
      const fixes = await page(pages(`/portfolios/${created.portfolio_id}/fixes`), owner);
      expect(fixes.status).toBe(409);
      expect(fixes.headers.get('refresh')).toBe('5');
    });
  });
});

describe('a portfolio\'s members', () => {
  it('renames, adds and removes members and deletes, through the API; a Viewer is offered none of it and refused', async () => {
    const created = await json(await api(portfolioApi(), { token: t.token, body: { name: 'Editable', members: ['shop'] } }));
    const id = created.portfolio_id;
    const base = pages(`/portfolios/${id}`);
    const html = await expectPage(await page(`${base}/members`, owner), 200, 'Members of Editable');
    for (const action of ['rename', 'members', 'members/remove', 'delete']) expect(html).toContain(`action="${base}/${action}"`);
    expect(html).toContain('<dialog id="delete-portfolio"');

    const viewerHtml = await expectPage(await page(`${base}/members`, viewer), 200, 'Members of Editable');
    expect(viewerHtml).not.toContain('method="post" action="/projects/');
    expect(textOf(viewerHtml)).toContain('shop subject');
    for (const [action, form] of [['members', { type: 'subject', value: 'cards' }], ['rename', { name: 'Taken over' }], ['delete', {}], ['members/remove', { type: 'subject', value: 'shop' }]] as const) {
      expect((await submit(`${base}/${action}`, viewer, form)).status, action).toBe(403);
      expect((await post(`${base}/${action}`, form, { cookie: owner })).status, action).toBe(403);
    }
    expect(await read(portfolioApi(id))).toMatchObject({ name: 'Editable', members: [{ member_type: 'subject', value: 'shop' }] });

    const added = await submit(`${base}/members`, owner, { type: 'subject', value: 'cards' });
    expect(added.status).toBe(303);
    expect(added.headers.get('location')).toBe(`${base}/members?saved=1`);
    expect((await read(portfolioApi(id))).members.map((m: any) => m.value)).toEqual(['cards', 'shop']);
    const bad = await submit(`${base}/members`, owner, { type: 'package', value: 'pkg:npm/lodash@1.0.0' });
    const badHtml = await expectPage(bad, 400, 'Members of Editable');
    expect(badHtml).toContain('id="member-value-error"');
    expect((await submit(`${base}/members`, owner, { type: 'package', value: 'pkg:npm/lodash' })).status).toBe(303);
    expect((await submit(`${base}/rename`, owner, { name: 'Edited' })).status).toBe(303);
    expect((await submit(`${base}/members/remove`, owner, { type: 'subject', value: 'cards' })).status).toBe(303);
    expect(await read(portfolioApi(id))).toMatchObject({ name: 'Edited', members: [{ member_type: 'package', value: 'pkg:npm/lodash' }, { member_type: 'subject', value: 'shop' }] });
    const after = textOf(await (await page(`${base}/members?saved=1`, owner)).text());
    expect(after).toContain('Saved.');
    expect(after).toContain('pkg:npm/lodash package');

    // The built-in portfolio offers no changes.
    const builtIn = await expectPage(await page(pages(`/portfolios/${implicitId}/members`), owner), 200, 'Members of All subjects');
    expect(builtIn).not.toContain(`action="${pages(`/portfolios/${implicitId}`)}/rename"`);
    expect(textOf(builtIn)).toContain('@acme/web subject');

    expect((await submit(`${base}/delete`, owner)).headers.get('location')).toBe(pages('/portfolios'));
    expect((await api(portfolioApi(id), { token: t.token })).status).toBe(404);
    expect((await page(base, owner)).status).toBe(404);
    await settleScoring(t);
  });
});

describe('ranked fixes', () => {
  it('lists the ranked rows with reach and fix version, each row, finding and bundled library tickable', async () => {
    const html = await expectPage(await page(pages(`/portfolios/${implicitId}/fixes`), owner), 200, 'Ranked fixes of All subjects');
    const rank = await read(`${portfolioApi(implicitId)}/rank?summary=true&limit=50`);
    const text = textOf(html);
    expect(text).toContain(`Showing 1–${rank.rows.length} of ${rank.total} fixes`);
    const lodash = rank.rows.find((r: any) => r.item_key === 'pkg:npm/lodash');
    expect(text).toContain(`#${lodash.rank} Upgrade lodash pkg:npm/lodash 4.17.21 1 subject shop ${lodash.gain.overall.toFixed(2)}`);
    expect(html).toContain('<form method="get" action="' + pages(`/portfolios/${implicitId}/fixes`) + '" id="fixes-form">');
    expect(html).toContain('name="row" value="pkg:npm/lodash"');
    expect(unescape(html)).toContain(`name="finding" value="${pair('pkg:npm/lodash', lodash.findings[0].finding_key)}"`);
    expect(unescape(html)).toContain(`name="dep" value="${pair('pkg:npm/node-forge', 'pkg:npm/lodash')}"`);
    const ws = rank.rows.find((r: any) => r.item_key === 'pkg:npm/ws');
    expect(text).toContain(`${ws.reach.count} subjects`);
    // The simulate button is the htmx element (with the page's nonce); the page works without it.
    expect(html).toMatch(/<button type="submit" class="btn btn-primary" name="simulate" value="1" hx-get="[^"]+" hx-include="#fixes-form" hx-target="#simulation" hx-swap="innerHTML" hx-push-url="true" hx-nonce="[0-9a-f]{32}">Simulate<\/button>/);
    expect(html).toContain('id="simulation-status" class="visually-hidden" aria-live="polite"');
    // A Viewer reads and simulates (project:portfolio:view) too.
    await expectPage(await page(pages(`/portfolios/${implicitId}/fixes`), viewer), 200, 'Ranked fixes of All subjects');
  });

  it('simulates the ticked selection from the URL: the whole page without script, the fragment with htmx, the API\'s own numbers marked projected', async () => {
    const rank = await read(`${portfolioApi(implicitId)}/rank?summary=true&limit=50`);
    const forge = rank.rows.find((r: any) => r.item_key === 'pkg:npm/node-forge');
    const rsa = rank.rows.find((r: any) => r.item_key === 'algorithm:RSA');
    // Ticked: lodash whole, one finding of node-forge, node-forge's bundled lodash (already fixed by the
    // lodash row, so not sent again), RSA whole, and one finding of RSA (part of its whole row).
    const query = new URLSearchParams([
      ['row', 'pkg:npm/lodash'], ['finding', pair(forge.item_key, forge.findings[0].finding_key)], ['dep', pair('pkg:npm/node-forge', 'pkg:npm/lodash')],
      ['row', rsa.item_key], ['finding', pair(rsa.item_key, rsa.findings[0].finding_key)], ['simulate', '1'],
    ]);
    const fixes = [{ item_key: 'pkg:npm/lodash' }, { item_key: rsa.item_key }, { item_key: forge.item_key, finding_key: forge.findings[0].finding_key }];
    const sim = await json(await api(`${portfolioApi(implicitId)}/simulate?rank=true`, { token: t.token, body: { fixes } }));
    expect(sim.projected.projected).toBe(true);
    expect(sim.projected.score).toBeGreaterThan(sim.current.score);

    const expectNumbers = (html: string) => {
      const text = textOf(html);
      const delta = (n: number) => (n > 0 ? `+${n.toFixed(1)}` : n < 0 ? `−${Math.abs(n).toFixed(1)}` : '0.0');
      expect(text).toContain(`Overall ${one(sim.current.score)} ${sim.current.band} ${one(sim.projected.score)} (projected) ${sim.projected.band} (projected) ${delta(sim.gain.overall)}`);
      for (const [axis, label] of [['pqc', 'Post-quantum (pqc)'], ['vuln', 'Vulnerabilities (vuln)'], ['agility', 'Crypto agility (agility)']] as const) {
        const c = sim.current.axes[axis];
        const p = sim.projected.axes[axis];
        expect(text).toContain(`${label} ${one(c.score)} ${c.band} ${one(p.score)} (projected) ${p.band} (projected) ${delta(sim.gain[axis])}`);
      }
      expect(text).toContain(`Simulated 3 fixes: overall score ${one(sim.current.score)} now, ${one(sim.projected.score)} projected.`);
      const top = sim.rank[0];
      expect(text).toContain(`#1 ${top.name} ${top.item_key} #${top.previous_rank} ${top.gain.overall.toFixed(2)}`);
    };

    const full = await page(`${pages(`/portfolios/${implicitId}/fixes`)}?${query}`, owner);
    const html = await expectPage(full, 200, 'Ranked fixes of All subjects');
    expectNumbers(html);
    expect(textOf(html)).toContain('5 ticks in all.');
    // The ticks are kept checked.
    expect(html).toContain('name="row" value="pkg:npm/lodash" checked=""');
    expect(unescape(html)).toContain(`value="${pair('pkg:npm/node-forge', 'pkg:npm/lodash')}" checked=""`);

    const part = await fragmentOf(`${pages(`/portfolios/${implicitId}/fixes`)}?${query}`, owner);
    expect(part.status).toBe(200);
    const fragmentHtml = await part.text();
    expect(fragmentHtml).not.toContain('<html');
    expect(fragmentHtml).not.toContain('<h1');
    expectNumbers(fragmentHtml);
    expect(fragmentHtml).toMatch(/<p id="simulation-status" hx-swap-oob="innerHTML" hx-nonce="[0-9a-f]{32}">Simulated 3 fixes/);
  });

  it('keeps ticks from other pages as hidden inputs, says when nothing is ticked, and shows a refused simulation in place', async () => {
    const path = pages(`/portfolios/${implicitId}/fixes`);
    const nothing = await expectPage(await page(`${path}?simulate=1`, owner), 200, 'Ranked fixes of All subjects');
    expect(textOf(nothing)).toContain('Nothing to simulate: tick at least one fix');
    const elsewhere = await expectPage(await page(`${path}?${new URLSearchParams([['row', 'pkg:npm/not-ranked'], ['simulate', '1']])}`, owner), 200, 'Ranked fixes of All subjects');
    expect(elsewhere).toContain('<input type="hidden" name="row" value="pkg:npm/not-ranked"/>');
    expect(textOf(elsewhere)).toContain('1 tick in all, 1 of them on other pages.');
    expect(elsewhere).toContain('role="alert"');
    expect(textOf(elsewhere)).toContain('The simulation was refused:');
    // The pager's buttons submit the ticks with the page asked for.
    const paged = await expectPage(await page(`${path}?offset=0&go=1&row=pkg%3Anpm%2Flodash`, owner), 200, 'Ranked fixes of All subjects');
    expect(textOf(paged)).toMatch(/Showing 2–\d+ of \d+ fixes/);
    expect(paged).toContain('name="go" value="0">Previous fixes</button>');
  });
});

describe('subjects', () => {
  it('lists the subjects with their criticality, filtered and paged in the URL', async () => {
    const html = await expectPage(await page(pages('/subjects'), owner), 200, 'Subjects');
    const { subjects } = await read(`${P(t.projectId)}/v1/subject`);
    const text = textOf(html);
    for (const s of subjects) expect(text).toContain(`${s.name} ${s.criticality}`);
    expect(html).toContain('aria-current="page">Subjects</a>');
    const filtered = textOf(await expectPage(await page(pages('/subjects?q=SHO'), owner), 200, 'Subjects'));
    expect(filtered).toContain('shop unclassified');
    expect(filtered).not.toContain('cards unclassified');
    expect(filtered).toContain('Showing 1–1 of 1 subjects');
    expect(textOf(await (await page(pages('/subjects?q=nobody'), owner)).text())).toContain('No subject\'s name contains “nobody”');
    expect((await visit(pages('/subjects'))).headers.get('location')).toBe('/sign-in');
  });

  it('shows a subject\'s contents (paged by the API), its rating and history; a slash in the name works', async () => {
    const html = await expectPage(await page(pages('/subjects/shop'), owner), 200, 'shop');
    const contents = await read(`${P(t.projectId)}/v1/subject/shop/content?limit=50`);
    const text = textOf(html);
    expect(text).toContain(`Showing 1–${contents.items.length} of ${contents.total} items`);
    expect(text).toContain('lodash component 4.17.15 pkg:npm/lodash@4.17.15');
    expect(text).toContain('Never rated');
    expect(html).toContain(`action="${pages('/subjects/shop')}/rating"`);
    const second = textOf(await (await page(pages('/subjects/shop?offset=2'), owner)).text());
    expect(second).toContain(`Showing 3–${Math.min(52, contents.total)} of ${contents.total} items`);
    const scoped = await expectPage(await page(pages('/subjects/%40acme%2Fweb'), owner), 200, '@acme/web');
    expect(textOf(scoped)).toContain('ws component 7.4.0');
    expect((await page(pages('/subjects/nobody'), owner)).status).toBe(404);
  });

  it('rates with a rationale: saved through the API, shown in the history; a Viewer is offered no form and refused; another site is refused', async () => {
    const viewerHtml = await expectPage(await page(pages('/subjects/cards'), viewer), 200, 'cards');
    expect(viewerHtml).not.toContain('method="post" action="/projects/');
    expect(textOf(viewerHtml)).toContain('Someone with the project:portfolio:rate permission can rate it.');
    const forged = await submit(pages('/subjects/cards/rating'), viewer, { value: 'high', rationale: 'forged' });
    expect(forged.status).toBe(403);
    expect(textOf(await forged.text())).toContain('project:portfolio:rate');
    expect((await post(pages('/subjects/cards/rating'), { value: 'high' }, { cookie: owner })).status).toBe(403);
    expect((await post(pages('/subjects/cards/rating'), { value: 'high' }, { cookie: owner, origin: 'https://evil.example' })).status).toBe(403);
    expect(await read(`${P(t.projectId)}/v1/subject/cards/criticality/history`)).toEqual([]);

    const bad = await submit(pages('/subjects/cards/rating'), owner, { value: 'urgent', rationale: 'typo' });
    const badHtml = await expectPage(bad, 400, 'cards');
    expect(badHtml).toContain('id="rating-value-error"');
    expect(badHtml).toContain('typo</textarea>');

    const before = await read(`${portfolioApi(implicitId)}/state`);
    const rated = await submit(pages('/subjects/cards/rating'), owner, { value: 'high', rationale: 'Handles card numbers' });
    expect(rated.status).toBe(303);
    expect(rated.headers.get('location')).toBe(`${pages('/subjects/cards')}?rated=1#ratings`);
    const history = await read(`${P(t.projectId)}/v1/subject/cards/criticality/history`);
    expect(history).toEqual([expect.objectContaining({ value: 'high', prior_value: 'unclassified', rationale: 'Handles card numbers', rater: expect.objectContaining({ email: t.user.email }) })]);
    const html = await expectPage(await page(pages('/subjects/cards?rated=1'), owner), 200, 'cards');
    const text = textOf(html);
    expect(text).toContain('Rated. Every portfolio holding this subject is being scored again.');
    expect(text).toContain(`high (was unclassified) ${t.user.email} Handles card numbers`);
    expect(textOf(await (await page(pages('/subjects'), owner)).text())).toContain('cards high');

    // The rating rescored the portfolio: its page shows the new weight and a history row caused by the rating.
    await settleScoring(t);
    const after = await read(`${portfolioApi(implicitId)}/state`);
    expect(after.breakdown.subjects.find((s: any) => s.subject === 'cards')).toMatchObject({ criticality: 'high', weight: 4 });
    expect(after.score.axes.pqc.score).not.toBe(before.score.axes.pqc.score);
    const portfolioHtml = textOf(await (await page(pages(`/portfolios/${implicitId}`), owner)).text());
    expect(portfolioHtml).toContain(`Post-quantum (pqc) ${one(after.score.axes.pqc.score)}`);
    expect(portfolioHtml).toMatch(new RegExp(`pqc ${escapeRe(one(after.score.axes.pqc.score))} [+−]\\d+\\.\\d ${after.score.axes.pqc.band} a subject was rated`));
    expect(h1Of(await (await page(pages('/subjects/cards'), viewer)).text())).toBe('cards');
  });
});

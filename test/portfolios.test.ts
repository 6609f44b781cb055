// Portfolios, subjects and scoring through the API (spec 4.1, 4.2; docs/scoring.md): real surveys of
// fixture SBOMs and CBOMs analysed with the fixture OSV records, scoring run by the scoring queue's own
// consumer, every rule of 4.1 and 4.2, and isolation between projects.
import { createExecutionContext, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { OsvRecord } from '../src/analysis/vulns/osv-types';
import { projectStub } from '../src/project/client';
import { importRecords } from '../src/vulndb/import';
import mastercard from './fixtures/cbom/mastercard-client-encryption-java__cbom.json?raw';
import worker from '../src/index';
import { API, api, expectError, json, newTenant } from './helpers';
import { dataTenant } from './data-plane';
import { activityRows, addPerson, apiToken } from './people';
import { analysed, buildReports, deliver, letRendersFinish, P, renderDocuments, sbom, settleScoring, startSurvey, uploaded } from './pipeline';

const advisories = import.meta.glob('./fixtures/osv/*.json', { import: 'default', eager: true }) as Record<string, OsvRecord>;

type T = Awaited<ReturnType<typeof dataTenant>>;
const portfolioPath = (t: T, id = '') => `${P(t.projectId)}/v1/portfolio${id ? `/${id}` : ''}`;


/**
 * Runs `check` while the portfolio's scoring is held back: the scoring queue delivers on its own, so a
 * test cannot otherwise see the state between a change and its scoring. The change must have left the
 * portfolio `status` (its generation moved); holding means the state the change left, with the work
 * asked for again afterwards.
 */
async function holdScoring(t: { projectId: string }, portfolioId: string, status: 'unscored' | 'rescoring', cause: string, check: () => Promise<unknown>) {
  const stub = projectStub(env, t.projectId);
  const held = await runInDurableObject(stub, (_i, state) => {
    const row = state.storage.sql.exec<{ status: string; generation: number }>('SELECT status, generation FROM portfolios WHERE id = ?', portfolioId).one();
    // Already scored by the queue: put back the state the change left (its result is for this generation).
    state.storage.sql.exec('UPDATE portfolios SET status = ?, generation = generation + 1 WHERE id = ?', status, portfolioId);
    state.storage.sql.exec('DELETE FROM scoring_work WHERE portfolio_id = ?', portfolioId);
    return row;
  });
  expect(['scored', status]).toContain(held.status);
  await check();
  await runInDurableObject(stub, (_i, state) => {
    state.storage.sql.exec("INSERT OR REPLACE INTO scoring_work (portfolio_id, generation, cause, attempts, expires_at) SELECT id, generation, ?, 0, 0 FROM portfolios WHERE id = ?", cause, portfolioId);
  });
}

/** Rings the project object's alarm until no PORTFOLIO_BACKFILL job is left to run. */
async function finishBackfills(t: { projectId: string }): Promise<void> {
  const stub = projectStub(env, t.projectId);
  for (let ring = 0; ring < 50; ring++) {
    const open = await runInDurableObject(stub, (_i, state) =>
      state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM jobs WHERE type = 'PORTFOLIO_BACKFILL' AND status IN ('PENDING', 'RUNNING')").one().n);
    if (!open) return;
    await runDurableObjectAlarm(stub);
  }
  throw new Error('backfill did not finish');
}

async function builtIn(t: T) {
  const { portfolios } = await json(await api(portfolioPath(t), { token: t.token }));
  return portfolios.find((p: any) => p.is_implicit);
}

/** Rows of a query run in the project's object. */
const sqlIn = <R>(projectId: string, query: string, ...bindings: unknown[]) => runInDurableObject(projectStub(env, projectId), (_i, state) =>
  state.storage.sql.exec(query, ...bindings).toArray() as unknown as R[]);
const stateOf = async (t: T, id: string, query = '') => api(`${portfolioPath(t, id)}/state${query}`, { token: t.token });
const rankOf = async (t: T, id: string, query = '') => json(await api(`${portfolioPath(t, id)}/rank${query}`, { token: t.token }));
const simulate = (t: T, id: string, body: unknown, query = '') => api(`${portfolioPath(t, id)}/simulate${query}`, { token: t.token, body });

let t: T;
let implicitId: string;

beforeAll(async () => {
  await importRecords(env.DB, Object.values(advisories), 'test');
  t = await dataTenant('portfolios');
  // An application with vulnerable npm packages (lodash: three advisories, ws, node-forge: a crypto library without ML-KEM).
  // node-forge bundles lodash in its dependency graph.
  const shop = JSON.parse(sbom('shop', [['lodash', '4.17.15'], ['ws', '7.4.0'], ['node-forge', '0.10.0'], ['left-pad', '1.3.0']]));
  for (const c of shop.components) c['bom-ref'] = c.purl;
  shop.dependencies = [{ ref: 'pkg:npm/node-forge@0.10.0', dependsOn: ['pkg:npm/lodash@4.17.15'] }];
  await analysed(t, JSON.stringify(shop));
  // A Java application's CBOM: RSA and friends, named in its own source files.
  await analysed(t, mastercard, { target: 'cards' });
  await settleScoring(t);
  implicitId = (await builtIn(t)).portfolio_id;
}, 60_000);

describe('the built-in portfolio', () => {
  it('holds every subject and is scored on all three axes with a breakdown naming the costliest findings', async () => {
    const portfolio = await builtIn(t);
    expect(portfolio).toMatchObject({ name: 'All subjects', is_implicit: true, scoring: 'scored', members: [{ member_type: 'subject', value: 'cards' }, { member_type: 'subject', value: 'shop' }] });
    const state = await json(await stateOf(t, implicitId));
    expect(state.subjects).toBe(2);
    for (const axis of ['pqc', 'vuln', 'agility']) {
      expect(state.score.axes[axis].score).toBeGreaterThanOrEqual(0);
      expect(state.score.axes[axis].score).toBeLessThan(100);
    }
    expect(state.score.score).toBeCloseTo(0.4 * state.score.axes.vuln.score + 0.4 * state.score.axes.pqc.score + 0.2 * state.score.axes.agility.score, 0);
    expect(['strong', 'fair', 'weak', 'critical']).toContain(state.score.band);
    const vuln = state.breakdown.axes.vuln.costliest;
    expect(vuln[0]).toMatchObject({ subject: 'shop', axis: 'vuln' });
    expect(vuln[0].points).toBeGreaterThan(0);
    expect(state.breakdown.axes.pqc.costliest[0]).toMatchObject({ subject: 'cards', axis: 'pqc' });
    expect(state.breakdown.subjects.map((s: any) => s.subject).sort()).toEqual(['cards', 'shop']);
    // node-forge has no release with ML-KEM: an agility finding of shop; cards names its algorithms in Java sources.
    const agility = state.breakdown.axes.agility.costliest.map((f: any) => f.finding_key);
    expect(agility).toContain('pqc-support:node-forge');
    expect(agility.some((k: string) => k.startsWith('hard-coded:'))).toBe(true);
    expect(state.rank).toBeUndefined();
    const withRank = await json(await stateOf(t, implicitId, '?rank=true'));
    expect(withRank.rank.rows.length).toBe(withRank.rank.total);
    expect(withRank.rank.rows[0].items).toBeUndefined();
  });

  it('answers state and first rank pages gzip-compressed to callers that accept it: the same JSON; deeper pages as text', async () => {
    // The Worker's own fetch handler, called in-process: its answer as it leaves the Worker, bytes not decoded by a client.
    const gzipped = (path: string, encoding = 'gzip, deflate, br') =>
      worker.fetch!(new Request(`${API}${path}`, { headers: { authorization: `Bearer ${t.token}`, 'accept-encoding': encoding } }) as never, env, createExecutionContext());
    const inflate = async (res: Response) => new Response(new Blob([await res.arrayBuffer()]).stream().pipeThrough(new DecompressionStream('gzip'))).text();
    const path = portfolioPath(t, implicitId);
    for (const read of ['/state', '/state?rank=true', '/rank', '/rank?summary=true&limit=1']) {
      const plain = await api(`${path}${read}`, { token: t.token });
      expect(plain.headers.get('content-encoding')).toBeNull();
      const text = await plain.text();
      const first = await gzipped(`${path}${read}`);
      expect(first.status).toBe(200);
      expect(first.headers.get('content-encoding')).toBe('gzip');
      expect(first.headers.get('vary')).toMatch(/accept-encoding/i);
      expect(first.headers.get('content-type')).toBe('application/json');
      expect((await first.clone().arrayBuffer()).byteLength).toBeLessThan(text.length);
      expect(await inflate(first)).toBe(text);
      expect(await inflate(await gzipped(`${path}${read}`))).toBe(text);
      // gzip refused, or not named: plain text.
      for (const encoding of ['gzip;q=0, identity', 'identity', 'br']) expect((await gzipped(`${path}${read}`, encoding)).headers.get('content-encoding')).toBeNull();
    }
    // A deeper page is read once while paging: it goes out as text (the edge compresses it), the same JSON.
    const deep = await gzipped(`${path}/rank?summary=true&limit=1&offset=1`);
    expect(deep.headers.get('content-encoding')).toBeNull();
    expect(await deep.text()).toBe(await (await api(`${path}/rank?summary=true&limit=1&offset=1`, { token: t.token })).text());

    // A rename and a new scoring build are answered at once, compressed too.
    const created = await json(await api(portfolioPath(t), { token: t.token, body: { name: 'Compressed', members: ['shop'] } }));
    await settleScoring(t);
    const statePath = `${portfolioPath(t, created.portfolio_id)}/state`;
    const before = JSON.parse(await inflate(await gzipped(statePath)));
    expect(before).toMatchObject({ name: 'Compressed', subjects: 1 });
    await api(portfolioPath(t, created.portfolio_id), { token: t.token, method: 'PUT', body: { name: 'Compressed, renamed' } });
    await settleScoring(t);
    expect(JSON.parse(await inflate(await gzipped(statePath)))).toMatchObject({ name: 'Compressed, renamed', subjects: 1 });
    await api(`${portfolioPath(t, created.portfolio_id)}/member`, { token: t.token, body: JSON.stringify('cards') });
    await settleScoring(t);
    const after = JSON.parse(await inflate(await gzipped(statePath)));
    expect(after).toMatchObject({ name: 'Compressed, renamed', subjects: 2 });
    expect(after.computed_at).not.toBe(before.computed_at);
    expect(after).toEqual(await json(await stateOf(t, created.portfolio_id)));
    // Deleted: 404, never a kept answer.
    await api(portfolioPath(t, created.portfolio_id), { token: t.token, method: 'DELETE' });
    await expectError(await gzipped(statePath), 404, 'not_found');
  });

  it('refuses changes (400) and lists every subject as its members', async () => {
    const path = portfolioPath(t, implicitId);
    await expectError(await api(path, { token: t.token, method: 'PUT', body: { name: 'x' } }), 400, 'invalid_request');
    await expectError(await api(path, { token: t.token, method: 'DELETE' }), 400, 'invalid_request');
    await expectError(await api(`${path}/member`, { token: t.token, body: JSON.stringify('shop') }), 400, 'invalid_request');
    await expectError(await api(`${path}/member/shop`, { token: t.token, method: 'DELETE' }), 400, 'invalid_request');
    expect((await json(await api(`${path}/member`, { token: t.token }))).members.map((m: any) => m.value)).toEqual(['cards', 'shop']);
  });
});

afterAll(() => letRendersFinish([t]));

describe('ranked fixes', () => {
  it('orders rows by the portfolio gain, keeps ranks when paged, and summarises', async () => {
    const page = await rankOf(t, implicitId);
    expect(page.total).toBe(page.rows.length);
    expect(page.rows.map((r: any) => r.rank)).toEqual(page.rows.map((_: any, i: number) => i + 1));
    for (let i = 1; i < page.rows.length; i++) expect(page.rows[i - 1].gain.overall).toBeGreaterThanOrEqual(page.rows[i].gain.overall);
    const lodash = page.rows.find((r: any) => r.item_key === 'pkg:npm/lodash');
    expect(lodash).toMatchObject({ kind: 'package', action: 'upgrade', reach: { count: 1, subjects: ['shop'] } });
    // 4.17.15 is inside three fixture advisories' ranges (fixed in 4.17.19 and 4.17.21), outside the older ones.
    expect(lodash.findings.map((f: any) => f.finding_key).sort()).toEqual(['GHSA-29mw-wpgm-hmr9', 'GHSA-35jh-r3h4-6jhm', 'GHSA-p6mc-m468-83gw']);
    expect(lodash.items).toEqual([expect.objectContaining({ subject: 'shop', version: '4.17.15', purl: 'pkg:npm/lodash@4.17.15' })]);
    // One upgrade fixes every advisory: the highest of their fixed versions.
    expect(lodash.fix_version).toBe('4.17.21');
    const forge = page.rows.find((r: any) => r.item_key === 'pkg:npm/node-forge');
    expect(forge.findings.map((f: any) => f.axis)).toContain('vuln');
    const rsa = page.rows.find((r: any) => r.item_key.startsWith('algorithm:RSA'));
    expect(rsa).toMatchObject({ kind: 'algorithm', action: 'migrate', fix_version: null, reach: { subjects: ['cards'] } });
    expect(rsa.replacement).toBeTruthy();

    const second = await rankOf(t, implicitId, '?offset=1&limit=1');
    expect(second).toMatchObject({ total: page.total, offset: 1, limit: 1 });
    expect(second.rows).toEqual([page.rows[1]]);
    const summary = await rankOf(t, implicitId, '?summary=true');
    for (const row of summary.rows) {
      expect(row.items).toBeUndefined();
      expect(row.findings.length).toBeLessThanOrEqual(10);
      expect(row.occurrences.length).toBeLessThanOrEqual(10);
      expect(row.reach.count).toBe(page.rows.find((r: any) => r.item_key === row.item_key).reach.count);
    }
    await expectError(await api(`${portfolioPath(t, implicitId)}/rank?limit=0`, { token: t.token }), 400, 'invalid_parameter', { parameter: 'limit' });
    await expectError(await api(`${portfolioPath(t, implicitId)}/rank?limit=10001`, { token: t.token }), 400, 'invalid_parameter');
  });
});

describe('simulation', () => {
  it('projects one fix, a list or {fixes}; the gain of one row equals its ranked gain; nothing is stored', async () => {
    const page = await rankOf(t, implicitId);
    const top = page.rows[0];
    const one = await json(await simulate(t, implicitId, { item_key: top.item_key }));
    expect(one.projected.projected).toBe(true);
    expect(one.projected.score).toBeGreaterThan(one.current.score);
    expect(one.gain.overall).toBeCloseTo(top.gain.overall, 1);
    const list = await json(await simulate(t, implicitId, [{ item_key: top.item_key }, { item_key: page.rows[1].item_key }]));
    const wrapped = await json(await simulate(t, implicitId, { fixes: [{ item_key: top.item_key }, { item_key: page.rows[1].item_key }] }));
    expect(wrapped).toEqual(list);
    expect(list.projected.score).toBeGreaterThan(one.projected.score);
    // The same row twice counts once.
    expect((await json(await simulate(t, implicitId, [{ item_key: top.item_key }, { item_key: top.item_key }]))).projected).toEqual(one.projected);
    // One finding of a row fixes less than the row.
    const lodash = page.rows.find((r: any) => r.item_key === 'pkg:npm/lodash');
    const single = await json(await simulate(t, implicitId, { item_key: 'pkg:npm/lodash', finding_key: lodash.findings[0].finding_key }));
    const whole = await json(await simulate(t, implicitId, { item_key: 'pkg:npm/lodash' }));
    expect(single.projected.axes.vuln.score).toBeLessThan(whole.projected.axes.vuln.score);
    expect(single.projected.axes.vuln.score).toBeGreaterThan(single.current.axes.vuln.score);
    // Upgrading to the fix version does what fixing the row does.
    expect((await json(await simulate(t, implicitId, { item_key: 'pkg:npm/lodash', upgrade_to: lodash.fix_version }))).projected).toEqual(whole.projected);
    // With rank=true the rows are ranked again; the fixed row is gone.
    const reranked = await json(await simulate(t, implicitId, { item_key: top.item_key }, '?rank=true'));
    expect(reranked.rank.map((r: any) => r.item_key)).not.toContain(top.item_key);
    expect(reranked.rank[0]).toMatchObject({ rank: 1, previous_rank: expect.any(Number) });
    // Nothing was stored.
    expect(await rankOf(t, implicitId)).toEqual(page);
  });

  it('takes each fix once, at most 1,000, and checks every upgrade against the vulnerability data in one D1 query', async () => {
    const page = await rankOf(t, implicitId);
    const lodash = page.rows.find((r: any) => r.item_key === 'pkg:npm/lodash');
    const ws = page.rows.find((r: any) => r.item_key === 'pkg:npm/ws');
    const upgrades = [{ item_key: 'pkg:npm/lodash', upgrade_to: lodash.fix_version }, { item_key: 'pkg:npm/ws', upgrade_to: ws.fix_version }];
    // 1,000 fixes, all repeats of two upgrades: one fix each in the answer, one lookup for both packages.
    const repeated = Array.from({ length: 1000 }, (_, i) => upgrades[i % 2]);
    const res = await simulate(t, implicitId, { fixes: repeated });
    expect(res.status).toBe(200);
    const answer = await json(res);
    expect(answer.fixes.map((f: any) => f.item_key)).toEqual(['pkg:npm/lodash', 'pkg:npm/ws']);
    expect(answer.projected).toEqual((await json(await simulate(t, implicitId, upgrades))).projected);
    // Counted by the local instance (DEV_SECRET): the vulnerability lookups of every upgrade are one query.
    expect(res.headers.get('server-timing')).toBe('d1;desc="1 queries"');
    // One more than the maximum is refused, naming it.
    const error = await expectError(await simulate(t, implicitId, Array.from({ length: 1001 }, () => upgrades[0])), 400, 'invalid_request');
    expect(error.error).toMatch(/At most 1,000 fixes/);
    // A simulation reads through a read session: the client's bookmark is honoured and one comes back.
    expect(res.headers.get('x-d1-bookmark')).toBeTruthy();
  });

  it('leaves the organization\'s access epoch alone (a POST that changes nothing keeps every isolate\'s cached credentials)', async () => {
    const epoch = () => env.ACCESS_EPOCH.get(env.ACCESS_EPOCH.idFromName(t.orgId)).current();
    const top = (await rankOf(t, implicitId, '?summary=true&limit=1')).rows[0];
    const before = await epoch();
    expect((await simulate(t, implicitId, { item_key: top.item_key })).status).toBe(200);
    expect(await epoch()).toBe(before);
    // A change does move it (so the check above could fail).
    const created = await api(portfolioPath(t), { token: t.token, body: { name: 'Epoch check' } });
    expect(created.status).toBe(201);
    expect(await epoch()).not.toBe(before);
    await api(portfolioPath(t, (await json(created)).portfolio_id), { token: t.token, method: 'DELETE' });
  });

  it('upgrades a library a row bundles (its dependency graph) with `dependency`', async () => {
    const forge = (await rankOf(t, implicitId)).rows.find((r: any) => r.item_key === 'pkg:npm/node-forge');
    expect(forge.dependencies).toEqual([{ purl: 'pkg:npm/lodash', name: 'lodash', versions: ['4.17.15'] }]);
    const viaForge = await json(await simulate(t, implicitId, { item_key: 'pkg:npm/node-forge', dependency: 'pkg:npm/lodash' }));
    const lodash = await json(await simulate(t, implicitId, { item_key: 'pkg:npm/lodash' }));
    expect(viaForge.projected).toEqual(lodash.projected);
    expect(viaForge.fixes[0].findings_fixed).toBe(3);
    await expectError(await simulate(t, implicitId, { item_key: 'pkg:npm/node-forge', dependency: 'pkg:npm/lodash', upgrade_to: '4.17.16' }), 400, 'invalid_request');
    expect((await simulate(t, implicitId, { item_key: 'pkg:npm/node-forge', dependency: 'pkg:npm/lodash', upgrade_to: '4.17.21' })).status).toBe(200);
  });

  it('answers 400 for every case of rule 12', async () => {
    const lodash = (await rankOf(t, implicitId)).rows.find((r: any) => r.item_key === 'pkg:npm/lodash');
    const rsa = (await rankOf(t, implicitId)).rows.find((r: any) => r.item_key.startsWith('algorithm:'));
    const cases: [unknown, RegExp][] = [
      [{}, /at least one fix/],
      [[], /at least one fix/],
      [{ fixes: [] }, /at least one fix/],
      [{ item_key: 'pkg:npm/lodash', finding_key: 'x', dependency: 'y' }, /never both/],
      [{ item_key: 'pkg:npm/not-in-the-list' }, /not a row/],
      [{ item_key: 'pkg:npm/lodash', finding_key: 'GHSA-0000-0000-0000' }, /carries no finding/],
      [{ item_key: 'pkg:npm/lodash', dependency: 'pkg:npm/left-pad' }, /bundles no library/],
      [{ item_key: 'pkg:npm/lodash', upgrade_to: '4.17.10' }, /below the installed version/],
      [{ item_key: 'pkg:npm/lodash', upgrade_to: '4.17.16' }, /still inside an affected range/],
      [{ item_key: rsa.item_key, upgrade_to: '2.0.0' }, /migration/],
      [{ finding_key: lodash.findings[0].finding_key }, /item_key/],
    ];
    for (const [body, message] of cases) {
      const error = await expectError(await simulate(t, implicitId, body), 400, 'invalid_request');
      expect({ body, error: error.error }).toEqual({ body, error: expect.stringMatching(message) });
    }
  });
});

describe('portfolios', () => {
  it('creates, scores, renames, changes members, keeps history, deletes (spec 4.1)', async () => {
    for (const body of [{}, { name: '  ' }, { name: 'x', members: [{ type: 'team', value: 'a' }] }, { name: 'x', members: [{ type: 'package', value: 'pkg:npm/lodash@4.17.15' }] }, { name: 'x', members: [{ type: 'package', value: 'lodash' }] }]) {
      expect({ body, status: (await api(portfolioPath(t), { token: t.token, body })).status }).toEqual({ body, status: 400 });
    }
    const created = await api(portfolioPath(t), { token: t.token, body: { name: 'Shop only', members: ['shop'] } });
    expect(created.status).toBe(201);
    const portfolio = await json(created);
    expect(portfolio).toMatchObject({ name: 'Shop only', is_implicit: false, scoring: 'unscored', members: [{ member_type: 'subject', value: 'shop' }] });
    expect(portfolio.settings.criticality_weights).toEqual({ high: 4, medium: 2, low: 1, unclassified: 2 });
    expect((await activityRows(t.orgId, 'portfolio.created')).map((r) => r.data.portfolioId)).toContain(portfolio.portfolio_id);
    // The scoring queue runs on its own and may be done already; held back here, state and rank answer 503 unscored.
    await holdScoring(t, portfolio.portfolio_id, 'unscored', 'membership', async () => {
      await expectError(await stateOf(t, portfolio.portfolio_id), 503, 'unscored');
      await expectError(await api(`${portfolioPath(t, portfolio.portfolio_id)}/rank`, { token: t.token }), 503, 'unscored');
    });
    await settleScoring(t);
    const shopOnly = await json(await stateOf(t, portfolio.portfolio_id));
    expect(shopOnly.subjects).toBe(1);
    expect(shopOnly.score.axes.pqc.score).toBe(100);
    // Its history starts before it: PORTFOLIO_BACKFILL replays shop's past reports (run by the object's alarm).
    await finishBackfills(t);
    const backfill = (await json(await api(`${P(t.projectId)}/v1/job?jobType=PORTFOLIO_BACKFILL`, { token: t.token }))).jobs
      .find((j: any) => j.metadata.portfolio_id === portfolio.portfolio_id);
    expect(backfill).toMatchObject({ status: 'COMPLETED', metadata: { reports: 2 } });
    const rows = (await json(await api(`${portfolioPath(t, portfolio.portfolio_id)}/history`, { token: t.token }))).rows;
    expect(rows.filter((r: any) => r.cause === 'backfill').every((r: any) => r.at < portfolio.created_at)).toBe(true);
    // A row per movement: the scoring at creation adds none where the replayed past already ends on today's score.
    for (const axis of ['pqc', 'vuln', 'agility']) expect(rows.filter((r: any) => r.axis === axis).at(-1).score).toBe(shopOnly.score.axes[axis].score);
    // One point per past survey (all its reports in): shop's only survey, the one it still holds, so today's score.
    const vulnPoints = rows.filter((r: any) => r.axis === 'vuln' && r.cause === 'backfill');
    expect(vulnPoints.map((r: any) => r.score)).toEqual([shopOnly.score.axes.vuln.score]);

    // Adding a member rescores (503 rescoring meanwhile); adding it again changes nothing.
    const added = await api(`${portfolioPath(t, portfolio.portfolio_id)}/member`, { token: t.token, body: { type: 'subject', value: 'cards' } });
    expect((await json(added)).members.map((m: any) => m.value)).toEqual(['cards', 'shop']);
    await holdScoring(t, portfolio.portfolio_id, 'rescoring', 'membership', async () => {
      await expectError(await stateOf(t, portfolio.portfolio_id), 503, 'rescoring');
      await expectError(await api(`${portfolioPath(t, portfolio.portfolio_id)}/rank`, { token: t.token }), 503, 'rescoring');
    });
    await settleScoring(t);
    // A plain JSON string is a subject.
    const again = await api(`${portfolioPath(t, portfolio.portfolio_id)}/member`, { token: t.token, body: JSON.stringify('cards') });
    expect(again.status).toBe(200);
    expect((await stateOf(t, portfolio.portfolio_id)).status).toBe(200);
    const both = await json(await stateOf(t, portfolio.portfolio_id));
    expect(both.score.axes.pqc.score).toBeLessThan(100);
    const pqcHistory = (await json(await api(`${portfolioPath(t, portfolio.portfolio_id)}/history?axis=pqc`, { token: t.token }))).rows;
    expect(pqcHistory[0]).toMatchObject({ cause: 'backfill', score: 100 });
    expect(pqcHistory.at(-1)).toMatchObject({ cause: 'membership', score: both.score.axes.pqc.score });
    expect(pqcHistory.every((r: any) => r.axis === 'pqc')).toBe(true);
    await expectError(await api(`${portfolioPath(t, portfolio.portfolio_id)}/history?axis=speed`, { token: t.token }), 400, 'invalid_parameter', { parameter: 'axis' });

    // Remove: unknown type 400, missing member 404, a package member by its URL.
    const base = `${portfolioPath(t, portfolio.portfolio_id)}/member`;
    await expectError(await api(`${base}/cards?type=team`, { token: t.token, method: 'DELETE' }), 400, 'invalid_parameter', { parameter: 'type' });
    await expectError(await api(`${base}/nobody`, { token: t.token, method: 'DELETE' }), 404, 'not_found');
    const removed = await json(await api(`${base}/cards`, { token: t.token, method: 'DELETE' }));
    expect(removed.members).toEqual([{ member_type: 'subject', value: 'shop' }]);

    // Replace the members with a package: every subject containing it.
    const updated = await json(await api(portfolioPath(t, portfolio.portfolio_id), { token: t.token, method: 'PUT', body: { name: 'Lodash users', members: [{ type: 'package', value: 'pkg:npm/lodash' }] } }));
    expect(updated).toMatchObject({ name: 'Lodash users', members: [{ member_type: 'package', value: 'pkg:npm/lodash' }] });
    await settleScoring(t);
    expect((await json(await stateOf(t, portfolio.portfolio_id))).breakdown.subjects.map((s: any) => s.subject)).toEqual(['shop']);
    await expectError(await api(`${base}/${encodeURIComponent('pkg:npm/lodash')}?type=subject`, { token: t.token, method: 'DELETE' }), 404, 'not_found');
    expect((await api(`${base}/${encodeURIComponent('pkg:npm/lodash')}?type=package`, { token: t.token, method: 'DELETE' })).status).toBe(200);

    expect((await api(portfolioPath(t, portfolio.portfolio_id), { token: t.token, method: 'DELETE' })).status).toBe(204);
    for (const suffix of ['', '/history', '/member', '/rank', '/state']) {
      await expectError(await api(`${portfolioPath(t, portfolio.portfolio_id)}${suffix}`, { token: t.token }), 404, 'not_found');
    }
    expect((await json(await api(portfolioPath(t), { token: t.token }))).portfolios.map((p: any) => p.portfolio_id)).not.toContain(portfolio.portfolio_id);
    await expectError(await api(portfolioPath(t, crypto.randomUUID()), { token: t.token }), 404, 'not_found');
  });

  it('a deleted portfolio answers 404 to every operation, whatever the body (spec 4.1 rule 3)', async () => {
    const created = await json(await api(portfolioPath(t), { token: t.token, body: { name: 'Soon gone', members: ['shop'] } }));
    const id = created.portfolio_id;
    const path = portfolioPath(t, id);
    // While it exists, an invalid member is 400 for update and add member.
    await expectError(await api(path, { token: t.token, method: 'PUT', body: { members: [{ type: 'team', value: 'a' }] } }), 400, 'invalid_request');
    await expectError(await api(`${path}/member`, { token: t.token, body: { type: 'package', value: 'lodash' } }), 400, 'invalid_request');
    expect((await api(path, { token: t.token, method: 'DELETE' })).status).toBe(204);
    const calls: [string, string, unknown][] = [
      ['PUT', '', { name: 'Back again' }], ['PUT', '', { members: [{ type: 'team', value: 'a' }] }], ['PUT', '', 'not json'], ['DELETE', '', undefined],
      ['POST', '/member', 'shop'], ['POST', '/member', { type: 'package', value: 'lodash' }], ['DELETE', '/member/shop', undefined],
      ['GET', '/member', undefined], ['GET', '/history', undefined], ['GET', '/rank', undefined], ['GET', '/state', undefined],
      ['POST', '/simulate', { item_key: 'pkg:npm/lodash' }], ['POST', '/simulate', {}], ['POST', '/simulate', { fixes: 'none' }], ['POST', '/simulate', '{not json'],
    ];
    for (const [method, suffix, body] of calls) {
      const res = await api(`${path}${suffix}`, { token: t.token, method, body });
      expect({ method, suffix, body, status: res.status }).toEqual({ method, suffix, body, status: 404 });
    }
    // A portfolio that never existed, too.
    await expectError(await simulate(t, crypto.randomUUID(), {}), 404, 'not_found');
  });

  it('needs project:edit to change and project:portfolio:view to read; other projects see nothing', async () => {
    const viewer = await addPerson(t, 'Viewer', 'viewer');
    expect((await api(portfolioPath(t), { token: viewer.token })).status).toBe(200);
    await expectError(await api(portfolioPath(t), { token: viewer.token, body: { name: 'mine' } }), 403, 'permission_denied', { permission: 'project:edit' });
    const readOnly = await apiToken(t, ['project:view']);
    await expectError(await api(portfolioPath(t), { token: readOnly }), 403, 'permission_denied', { permission: 'project:portfolio:view' });
    const other = await dataTenant('other');
    await expectError(await api(portfolioPath(t), { token: other.token }), 403, 'forbidden');
    await expectError(await api(portfolioPath(other as T, implicitId), { token: other.token }), 404, 'not_found');
    expect((await json(await api(`${P(other.projectId)}/v1/subject`, { token: other.token }))).subjects).toEqual([]);
  });

  it('answers 404 (portfolios not set up) while the project\'s storage is being set up', async () => {
    for (const [method, path, body] of [['GET', '/v1/portfolio', undefined], ['POST', '/v1/portfolio', { name: 'x' }], ['GET', '/v1/subject', undefined], ['GET', '/v1/subject/shop/criticality/history', undefined]] as const) {
      const tenant = await newTenant();
      const error = await expectError(await api(`${P(tenant.projectId)}${path}`, { token: tenant.token, method, body }), 404, 'not_found');
      expect(error.error).toMatch(/not set up/);
    }
  });
});

describe('subjects and criticality', () => {
  it('lists subjects and their contents; 404 for an unknown name', async () => {
    const { subjects } = await json(await api(`${P(t.projectId)}/v1/subject`, { token: t.token }));
    expect(subjects.map((s: any) => [s.name, s.criticality])).toEqual([['cards', 'unclassified'], ['shop', 'unclassified']]);
    expect(subjects[0].first_seen).toBeTruthy();
    const page = await json(await api(`${P(t.projectId)}/v1/subject/shop/content?limit=2`, { token: t.token }));
    expect(page).toMatchObject({ offset: 0, limit: 2 });
    expect(page.items).toHaveLength(2);
    expect(page.total).toBeGreaterThan(4);
    await expectError(await api(`${P(t.projectId)}/v1/subject/nobody/content`, { token: t.token }), 404, 'not_found');
    await expectError(await api(`${P(t.projectId)}/v1/subject/nobody/criticality/history`, { token: t.token }), 404, 'not_found');
  });

  it('rates (session only), keeps the history, and rescores every portfolio holding the subject', async () => {
    const path = `${P(t.projectId)}/v1/subject/shop/criticality`;
    expect(await json(await api(`${path}/history`, { token: t.token }))).toEqual([]);
    const token = await apiToken(t, ['project:view', 'project:portfolio:view', 'project:portfolio:rate']);
    await expectError(await api(path, { token, method: 'PUT', body: { value: 'high' } }), 401, 'session_required');
    const viewer = await addPerson(t, 'Viewer', 'rater-viewer');
    await expectError(await api(path, { token: viewer.token, method: 'PUT', body: { value: 'high' } }), 403, 'permission_denied', { permission: 'project:portfolio:rate' });
    for (const body of [{}, { value: 'urgent' }]) await expectError(await api(path, { token: t.token, method: 'PUT', body }), 400, 'invalid_request');
    await expectError(await api(`${P(t.projectId)}/v1/subject/nobody/criticality`, { token: t.token, method: 'PUT', body: { value: 'high' } }), 404, 'not_found');

    const before = await json(await stateOf(t, implicitId));
    const rated = await json(await api(path, { token: t.token, method: 'PUT', body: { value: 'high', rationale: 'Takes payments' } }));
    expect(rated).toMatchObject({ value: 'high', prior_value: 'unclassified', rationale: 'Takes payments', rater: { id: t.user.id, email: t.user.email } });
    await holdScoring(t, implicitId, 'rescoring', 'rating', async () => expectError(await stateOf(t, implicitId), 503, 'rescoring'));
    await settleScoring(t);
    const after = await json(await stateOf(t, implicitId));
    // shop (many vulnerabilities) now weighs 4 against cards' 2: the vuln score falls.
    expect(after.score.axes.vuln.score).toBeLessThan(before.score.axes.vuln.score);
    expect(after.breakdown.subjects.find((s: any) => s.subject === 'shop')).toMatchObject({ criticality: 'high', weight: 4 });
    const history = (await json(await api(`${portfolioPath(t, implicitId)}/history?axis=vuln`, { token: t.token }))).rows;
    expect(history.at(-1)).toMatchObject({ cause: 'rating', score: after.score.axes.vuln.score });

    await api(path, { token: t.token, method: 'PUT', body: { value: 'low' } });
    const ratings = await json(await api(`${path}/history`, { token: t.token }));
    expect(ratings.map((r: any) => [r.value, r.prior_value])).toEqual([['low', 'high'], ['high', 'unclassified']]);
    expect((await activityRows(t.orgId, 'subject.rated')).length).toBeGreaterThanOrEqual(2);
    await settleScoring(t);
  });

  it('rescores when a survey of a member subject completes (history cause survey)', async () => {
    const before = await json(await stateOf(t, implicitId));
    await analysed(t, sbom('shop', [['left-pad', '1.3.0']]));
    await settleScoring(t);
    const after = await json(await stateOf(t, implicitId));
    expect(after.score.axes.vuln.score).toBeGreaterThan(before.score.axes.vuln.score);
    const history = (await json(await api(`${portfolioPath(t, implicitId)}/history?axis=vuln`, { token: t.token }))).rows;
    expect(history.at(-1)).toMatchObject({ cause: 'survey', score: after.score.axes.vuln.score });
    expect((await rankOf(t, implicitId)).rows.find((r: any) => r.item_key === 'pkg:npm/lodash')).toBeUndefined();

    // A portfolio created now replays both of shop's surveys: the first from its reports, then today's.
    const created = await json(await api(portfolioPath(t), { token: t.token, body: { name: 'Shop over time', members: ['shop'] } }));
    await settleScoring(t);
    await finishBackfills(t);
    const points = (await json(await api(`${portfolioPath(t, created.portfolio_id)}/history?axis=vuln`, { token: t.token }))).rows;
    const replayed = points.filter((r: any) => r.cause === 'backfill');
    expect(replayed).toHaveLength(2);
    expect(replayed[0].score).toBeLessThan(50);
    expect(replayed[1].score).toBe(100);
    expect(replayed[0].at < replayed[1].at).toBe(true);
    expect((await api(portfolioPath(t, created.portfolio_id), { token: t.token, method: 'DELETE' })).status).toBe(204);
  });
});

describe('the daily snapshot and its posture reports (spec 4.10 rule 10)', () => {
  const startSnapshot = (asOf: string) => (projectStub(env, t.projectId) as any).startSnapshot({ asOf }) as Promise<{ job_id: string; portfolios: number }>;
  const report = (id: string, suffix = '') => api(`${P(t.projectId)}/v1/report/${id}${suffix}`, { token: t.token });
  let first: { job_id: string; portfolios: number };
  let postureId: string;
  let regeneratedId: string;

  it('writes a history point per axis for every portfolio and a posture report read like any report', async () => {
    first = await startSnapshot('2026-11-24T00:05:00.000Z');
    // The same day again: the same snapshot.
    expect((await startSnapshot('2026-11-24T03:00:00.000Z')).job_id).toBe(first.job_id);
    await settleScoring(t);
    const snapshot = await json(await api(`${P(t.projectId)}/v1/job/${first.job_id}`, { token: t.token }));
    expect(snapshot).toMatchObject({ type: 'PORTFOLIO_SNAPSHOT', status: 'COMPLETED' });
    const steps = snapshot.steps.filter((s: any) => s.step_type === 'REPORT');
    expect(steps.length).toBe(first.portfolios);
    const step = steps.find((s: any) => s.metadata.portfolio_id === implicitId);
    expect(step).toMatchObject({ type: 'REPORT', status: 'COMPLETED', metadata: { report_type: 'posture', as_of: '2026-11-24T00:05:00.000Z' } });
    postureId = step.id;
    const history = (await json(await api(`${portfolioPath(t, implicitId)}/history`, { token: t.token }))).rows.filter((r: any) => r.cause === 'snapshot');
    expect(history.map((r: any) => r.axis)).toEqual(['pqc', 'vuln', 'agility']);

    const state = await json(await stateOf(t, implicitId));
    const summary = await json(await report(postureId, '/summary'));
    expect(summary).toMatchObject({ report_id: postureId, type: 'posture', subject: 'All subjects', headline: { score: state.score.score, band: state.score.band } });
    expect(summary.sections.map((s: any) => s.name)).toEqual(['overview', 'fixes', 'subjects', 'movements']);
    const fixes = await json(await report(postureId, '/section/fixes?limit=5'));
    const rank = await rankOf(t, implicitId, '?limit=5');
    expect(fixes.entries.map((e: any) => e.item_key)).toEqual(rank.rows.map((r: any) => r.item_key));
    expect(fixes.entries[0]).toMatchObject({ rank: 1, section: 'fixes', gain: rank.rows[0].gain.overall });
    const subjects = await json(await report(postureId, '/section/subjects'));
    expect(subjects.entries.map((e: any) => e.subject).sort()).toEqual(['cards', 'shop']);
    const overview = await json(await report(postureId, '/section/overview'));
    expect(overview).toMatchObject({ portfolio: 'All subjects', score: state.score.score, previous_as_of: null });
    expect((await json(await report(postureId, '/search?query=shop'))).length).toBeGreaterThan(0);
    const full = await json(await report(postureId));
    expect(full).toMatchObject({ type: 'posture', portfolio_id: implicitId, as_of: '2026-11-24T00:05:00.000Z' });
    expect(full.sections.fixes.length).toBe(summary.sections.find((s: any) => s.name === 'fixes').total);
    // Rendered like every report: a render job per format under the report's job.
    const renders = (await json(await api(`${P(t.projectId)}/v1/job?jobType=REPORT&limit=10000`, { token: t.token }))).jobs.filter((j: any) => j.parent_id === postureId);
    expect(renders.map((j: any) => j.metadata.format).sort()).toEqual(['csv', 'html', 'pdf', 'pptx', 'xlsx']);
    const csv = renders.find((j: any) => j.metadata.format === 'csv');
    await deliver({ projectId: t.projectId, reportId: postureId, jobId: csv.id, format: 'csv' }, { queue: 'posture-render' });
    const exported = await api(`${P(t.projectId)}/v1/report/${postureId}/export/csv`, { token: t.token });
    expect(exported.status).toBe(200);
    expect(await exported.text()).toContain(rank.rows[0].name);
  });

  it('says what moved since the previous snapshot', async () => {
    await api(`${P(t.projectId)}/v1/subject/cards/criticality`, { token: t.token, method: 'PUT', body: { value: 'high' } });
    await settleScoring(t);
    const next = await startSnapshot('2026-11-25T00:05:00.000Z');
    await settleScoring(t);
    const snapshot = await json(await api(`${P(t.projectId)}/v1/job/${next.job_id}`, { token: t.token }));
    const id = snapshot.steps.find((s: any) => s.metadata.portfolio_id === implicitId).id;
    const movements = (await json(await report(id, '/section/movements'))).entries;
    const overall = movements.find((m: any) => m.key === 'axis:overall');
    expect(overall).toMatchObject({ since: '2026-11-24' });
    expect(overall.to).toBe((await json(await stateOf(t, implicitId))).score.score);
    expect(typeof overall.from).toBe('number');
    // Compare works across posture reports, finding by finding.
    const compared = await json(await api(`${P(t.projectId)}/v1/report/compare?from=${postureId}&to=${id}`, { token: t.token }));
    expect(compared.type).toBe('posture');
  });

  it('is taken by the daily message after the re-match of the project', async () => {
    const { id, result } = await deliver({ kind: 'rematch', projectId: t.projectId, snapshotAt: '2026-11-27T00:05:00.000Z' }, { queue: 'posture-scoring' });
    expect(result.explicitAcks).toEqual([id]);
    await settleScoring(t);
    const snapshots = (await json(await api(`${P(t.projectId)}/v1/job?jobType=PORTFOLIO_SNAPSHOT`, { token: t.token }))).jobs;
    expect(snapshots.find((j: any) => j.metadata.as_of === '2026-11-27T00:05:00.000Z')).toMatchObject({ status: 'COMPLETED' });
  });

  it('renders again like every report: 202, five render jobs, its documents replaced (issue 19)', async () => {
    const documents = () => runInDurableObject(projectStub(env, t.projectId), (_i, state) =>
      state.storage.sql.exec<{ format: string; blob_key: string; job_id: string }>('SELECT format, blob_key, job_id FROM report_documents WHERE report_id = ? ORDER BY format', postureId).toArray());
    // The automatic rendering first.
    await renderDocuments(t);
    await vi.waitFor(async () => expect((await documents()).length).toBe(5), { timeout: 30_000, interval: 200 });
    const before = await documents();
    const res = await api(`${P(t.projectId)}/v1/report/${postureId}/render`, { token: t.token, method: 'POST' });
    expect(res.status).toBe(202);
    const { renderSubJobIds } = await json(res);
    expect(Object.keys(renderSubJobIds).sort()).toEqual(['csv', 'html', 'pdf', 'pptx', 'xlsx']);
    await renderDocuments(t);
    await vi.waitFor(async () => expect((await documents()).map((d) => d.job_id).sort()).toEqual(Object.values(renderSubJobIds).sort()), { timeout: 30_000, interval: 200 });
    for (const old of before) expect(await env.BUNDLES.head(old.blob_key)).toBeNull();
    expect((await json(await report(postureId, '/export/pdf/provenance'))).render_job_id).toBe(renderSubJobIds.pdf);
    expect((await json(await report(postureId, '/export'))).formats).toEqual(['json', 'pdf', 'xlsx', 'pptx', 'html', 'csv']);
  });

  it('regenerates from the same data as of the same date: 202, then 409; 404 once its portfolio is deleted', async () => {
    const regenerate = (id: string) => api(`${P(t.projectId)}/v1/report/${id}/regenerate`, { token: t.token, method: 'POST' });
    const res = await regenerate(postureId);
    expect(res.status).toBe(202);
    const answer = await json(res);
    regeneratedId = answer.job_id;
    expect(answer.supersedes).toBe(postureId);
    expect(answer.job_id).not.toBe(postureId);
    const [before, after] = [await json(await report(postureId, '/summary')), await json(await report(answer.job_id, '/summary'))];
    expect(after.headline).toEqual(before.headline);
    expect((await json(await report(answer.job_id, '/section/fixes'))).entries).toEqual((await json(await report(postureId, '/section/fixes'))).entries);
    await expectError(await regenerate(postureId), 409, 'conflict');

    const created = await json(await api(portfolioPath(t), { token: t.token, body: { name: 'Short-lived', members: ['shop'] } }));
    await settleScoring(t);
    const snap = await startSnapshot('2026-11-26T00:05:00.000Z');
    // The real scoring queue may be scoring the new portfolio too (for its creation): its snapshot
    // report appears once that scoring's result is current.
    const itsReport = await vi.waitFor(async () => {
      await settleScoring(t);
      const job = await json(await api(`${P(t.projectId)}/v1/job/${snap.job_id}`, { token: t.token }));
      const step = job.steps.find((s: any) => s.metadata.portfolio_id === created.portfolio_id);
      expect(step).toBeDefined();
      return step.id as string;
    }, { timeout: 30_000, interval: 200 });
    expect((await api(portfolioPath(t, created.portfolio_id), { token: t.token, method: 'DELETE' })).status).toBe(204);
    await expectError(await regenerate(itsReport), 404, 'not_found');
  });

  it('lists the regenerated posture report\'s documents as stale (source_replaced), one entry per report, type and format (issue 19)', async () => {
    const stale = (await json(await api(`${P(t.projectId)}/v1/projection/stale`, { token: t.token }))) as any[];
    const replaced = stale.filter((e) => e.report_id === postureId);
    expect(replaced.map((e) => e.format).sort()).toEqual(['csv', 'html', 'pdf', 'pptx', 'xlsx']);
    for (const entry of replaced) {
      expect(entry).toMatchObject({ report_type: 'posture', survey_id: first.job_id });
      expect(entry.reasons).toContainEqual({ reason: 'source_replaced', replaced_by: regeneratedId });
    }
    // The new version's own documents are current; nothing is listed twice.
    expect(stale.some((e) => e.report_id === regeneratedId)).toBe(false);
    expect(new Set(stale.map((e) => `${e.report_id}/${e.report_type}/${e.format}`)).size).toBe(stale.length);
  });
});

describe('OpenAPI document', () => {
  it('lists every portfolio and subject operation with its permissions, schemas and error statuses', async () => {
    const doc = await json(await api('/api/v1/openapi.json'));
    const P = '/api/v1/project/{projectId}/v1';
    const operations: [string, string, string[]][] = [
      ['/portfolio', 'get', ['project:portfolio:view']], ['/portfolio', 'post', ['project:portfolio:view', 'project:edit']],
      ['/portfolio/{portfolioId}', 'get', ['project:portfolio:view']], ['/portfolio/{portfolioId}', 'put', ['project:portfolio:view', 'project:edit']],
      ['/portfolio/{portfolioId}', 'delete', ['project:portfolio:view', 'project:edit']], ['/portfolio/{portfolioId}/history', 'get', ['project:portfolio:view']],
      ['/portfolio/{portfolioId}/member', 'get', ['project:portfolio:view']], ['/portfolio/{portfolioId}/member', 'post', ['project:portfolio:view', 'project:edit']],
      ['/portfolio/{portfolioId}/member/{value}', 'delete', ['project:portfolio:view', 'project:edit']], ['/portfolio/{portfolioId}/rank', 'get', ['project:portfolio:view']],
      ['/portfolio/{portfolioId}/simulate', 'post', ['project:portfolio:view']], ['/portfolio/{portfolioId}/state', 'get', ['project:portfolio:view']],
      ['/subject', 'get', ['project:portfolio:view']], ['/subject/{subject}/content', 'get', ['project:portfolio:view']],
      ['/subject/{subject}/criticality', 'put', ['project:portfolio:rate']], ['/subject/{subject}/criticality/history', 'get', ['project:portfolio:view']],
    ];
    for (const [path, method, permissions] of operations) {
      const operation = doc.paths[`${P}${path}`]?.[method];
      expect({ path, method, permissions: operation?.['x-permissions'] }).toEqual({ path, method, permissions });
      expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['401', '403', '404']));
    }
    expect(Object.keys(doc.paths[`${P}/portfolio/{portfolioId}/state`].get.responses)).toContain('503');
    expect(doc.paths[`${P}/subject/{subject}/criticality`].put.security).toEqual([{ session: [] }]);
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(['Portfolio', 'PortfolioState', 'RankPage', 'RankedFixRow', 'Simulation', 'SimulateRequest', 'ScoreHistory', 'CriticalityRating']));
  });
});

describe('scoring work', () => {
  it('scores the built-in portfolio of a project whose storage predates portfolios, from the alarm', async () => {
    const older = await dataTenant('older');
    await analysed(older, sbom('legacy', [['lodash', '4.17.15']]));
    await settleScoring(older);
    // What a project set up before portfolios existed holds: no portfolio, no scoring asked for.
    await sqlIn(older.projectId, 'DELETE FROM portfolios');
    await sqlIn(older.projectId, 'DELETE FROM scoring_work');
    const [implicit] = (await json(await api(`${P(older.projectId)}/v1/portfolio`, { token: older.token }))).portfolios;
    expect(implicit).toMatchObject({ is_implicit: true, scoring: 'unscored' });
    // Its alarm rings (whenever it next does: the ring before may have left none set, so one is set here).
    await runInDurableObject(projectStub(env, older.projectId), (_i, state) => state.storage.setAlarm(Date.now() + 60_000));
    expect(await runDurableObjectAlarm(projectStub(env, older.projectId))).toBe(true);
    // The alarm asks for the scoring and sends it to the real scoring queue, whose consumer may have
    // finished it (and cleared the work) by now: asked for, or already scored.
    const asked = await sqlIn(older.projectId, 'SELECT portfolio_id FROM scoring_work');
    if (asked.length) expect(asked).toEqual([{ portfolio_id: implicit.portfolio_id }]);
    else expect((await api(`${P(older.projectId)}/v1/portfolio/${implicit.portfolio_id}/state`, { token: older.token })).status).toBe(200);
    await settleScoring(older);
    expect((await api(`${P(older.projectId)}/v1/portfolio/${implicit.portfolio_id}/state`, { token: older.token })).status).toBe(200);
  });

  it('rests work started too often for a day, and the next change asks again', async () => {
    const tired = await dataTenant('tired');
    await analysed(tired, sbom('app', [['lodash', '4.17.15']]));
    await settleScoring(tired);
    const [implicit] = (await json(await api(`${P(tired.projectId)}/v1/portfolio`, { token: tired.token }))).portfolios;
    // A scoring that kept dying: five starts, lapsed.
    await sqlIn(tired.projectId, "INSERT OR REPLACE INTO scoring_work (portfolio_id, generation, cause, attempts, expires_at, again) SELECT id, generation, 'survey', 5, 0, 0 FROM portfolios WHERE id = ?", implicit.portfolio_id);
    await runInDurableObject(projectStub(env, tired.projectId), (_i, state) => state.storage.setAlarm(Date.now() + 60_000));
    expect(await runDurableObjectAlarm(projectStub(env, tired.projectId))).toBe(true);
    const [rested] = await sqlIn<{ attempts: number; expires_at: number }>(tired.projectId, 'SELECT attempts, expires_at FROM scoring_work');
    expect(rested!.attempts).toBe(5);
    expect(rested!.expires_at).toBeGreaterThan(Date.now() + 23 * 3600_000);
    // A delivery of it does not run; the next survey (same generation: no rescoring state) asks for it afresh.
    const generation = (await sqlIn<{ generation: number }>(tired.projectId, 'SELECT generation FROM portfolios WHERE id = ?', implicit.portfolio_id))[0]!.generation;
    expect(await (projectStub(env, tired.projectId) as any).beginScoring({ portfolioId: implicit.portfolio_id, generation })).toEqual({ run: false });
    const survey = await startSurvey(tired);
    const message = await uploaded(tired, survey, sbom('app', [['lodash', '4.17.21']]));
    await deliver(message);
    await buildReports(message);
    expect((await sqlIn<{ generation: number }>(tired.projectId, 'SELECT generation FROM portfolios WHERE id = ?', implicit.portfolio_id))[0]!.generation).toBe(generation);
    await settleScoring(tired);
    const history = (await json(await api(`${P(tired.projectId)}/v1/portfolio/${implicit.portfolio_id}/history`, { token: tired.token }))).rows;
    expect((await api(`${P(tired.projectId)}/v1/portfolio/${implicit.portfolio_id}/state`, { token: tired.token })).status).toBe(200);
    expect(history.length).toBeGreaterThan(0);
  });
});

describe('scoring runs', () => {
  it('only the run that began last is kept: a run of earlier work finishing late is dropped, and the work\'s cause is the run\'s', async () => {
    const t = await dataTenant('late-run');
    await analysed(t, sbom('app', [['lodash', '4.17.15']]));
    await settleScoring(t);
    const [implicit] = (await json(await api(`${P(t.projectId)}/v1/portfolio`, { token: t.token }))).portfolios;
    const portfolioId = implicit.portfolio_id as string;
    // A generation no message sent so far names: a late delivery of the real queue's runs none of this.
    await sqlIn(t.projectId, 'UPDATE portfolios SET generation = generation + 1000 WHERE id = ?', portfolioId);
    const generation = (await sqlIn<{ generation: number }>(t.projectId, 'SELECT generation FROM portfolios WHERE id = ?', portfolioId))[0]!.generation;
    const stub = projectStub(env, t.projectId) as any;
    // Work asked for (written here, not sent: no real delivery runs beside the test's).
    const ask = (cause: string) => sqlIn(t.projectId, 'INSERT INTO scoring_work (portfolio_id, generation, cause, expires_at) VALUES (?, ?, ?, ?)', portfolioId, generation, cause, Date.now() + 60_000);
    const finish = (start: any) => stub.finishScoring({ portfolioId, generation, runId: start.runId, build: crypto.randomUUID(), asOf: start.asOf, cause: start.cause, state: {}, model: {}, rows: 0 });

    await ask('survey');
    const late = await stub.beginScoring({ portfolioId, generation });
    // The message delivered again: a second run, which finishes first and ends the work.
    const again = await stub.beginScoring({ portfolioId, generation });
    expect(await finish(again)).toEqual({ kept: true });
    expect(await sqlIn(t.projectId, 'SELECT 1 FROM scoring_work')).toEqual([]);
    // New work for the same generation (the vulnerability data moved), and its run begins.
    await ask('vulnerability-data');
    const current = await stub.beginScoring({ portfolioId, generation });
    expect(current).toMatchObject({ run: true, cause: 'vulnerability-data' });
    // Each of the first work's runs was its first attempt at it, as this run is of the new work: neither
    // is taken for this one.
    expect(await finish(late)).toEqual({ kept: false });
    expect(await finish(current)).toEqual({ kept: true });
  });
});

describe('a fix row larger than one stored value', () => {
  it('scores a subject with 20,000 keys of one algorithm: the row holds every finding, pages and simulates', async () => {
    const big = await dataTenant('big-row');
    // 20,000 distinct RSA-2048 public keys, each in its own file: one ranked row carrying 20,000
    // findings and occurrences, several MB of JSON (a project object's SQLite value holds at most 2 MB).
    const components: Record<string, unknown>[] = [{ type: 'cryptographic-asset', 'bom-ref': 'alg-rsa', name: 'RSA-2048', cryptoProperties: { assetType: 'algorithm', algorithmProperties: { primitive: 'pke', parameterSetIdentifier: '2048' } } }];
    for (let i = 0; i < 20_000; i++) {
      components.push({
        type: 'cryptographic-asset', 'bom-ref': `key-${i}`, name: `key-${i}`,
        cryptoProperties: { assetType: 'related-crypto-material', relatedCryptoMaterialProperties: { type: 'public-key', algorithmRef: 'alg-rsa', size: 2048, value: `key-${i}` } },
        evidence: { occurrences: [{ location: `keys/key-${i}.pem` }] },
      });
    }
    await analysed(big, JSON.stringify({ bomFormat: 'CycloneDX', specVersion: '1.6', version: 1, metadata: { component: { type: 'application', name: 'keys' } }, components }), { target: 'keys' });
    await settleScoring(big);
    const implicit = (await json(await api(`${P(big.projectId)}/v1/portfolio`, { token: big.token }))).portfolios.find((p: any) => p.is_implicit);
    expect(implicit.scoring).toBe('scored');
    const path = `${P(big.projectId)}/v1/portfolio/${implicit.portfolio_id}`;
    const page = await json(await api(`${path}/rank`, { token: big.token }));
    const row = page.rows.find((r: any) => r.findings.length >= 20_000);
    expect(row, JSON.stringify(page.rows.map((r: any) => [r.item_key, r.findings.length]))).toBeDefined();
    expect(new Set(row.findings.map((f: any) => f.finding_key)).size).toBe(row.findings.length);
    const summary = await json(await api(`${path}/rank?summary=true`, { token: big.token }));
    expect(summary.rows.find((r: any) => r.item_key === row.item_key).findings).toHaveLength(10);
    // Simulate one finding of the row, then the whole row: the projection moves, the second further.
    const one = await json(await api(`${path}/simulate`, { token: big.token, body: { item_key: row.item_key, finding_key: row.findings[19_999].finding_key } }));
    const whole = await json(await api(`${path}/simulate?rank=true`, { token: big.token, body: { item_key: row.item_key } }));
    expect(whole.projected.axes.pqc.score).toBeGreaterThan(one.projected.axes.pqc.score);
    expect(whole.rank.some((r: any) => r.item_key === row.item_key)).toBe(false);
    // The pieces belong to the current builds only; deleting a portfolio deletes its pieces.
    const partsByBuild = () => sqlIn<{ build: string; n: number }>(big.projectId, 'SELECT build, COUNT(*) AS n FROM portfolio_fix_parts GROUP BY build ORDER BY build');
    const builds = () => sqlIn<{ build: string }>(big.projectId, 'SELECT build FROM portfolio_results ORDER BY build');
    const created = await json(await api(`${P(big.projectId)}/v1/portfolio`, { token: big.token, body: { name: 'Keys', members: ['keys'] } }));
    await settleScoring(big);
    expect((await partsByBuild()).map((b) => b.build)).toEqual((await builds()).map((b) => b.build));
    expect((await partsByBuild()).every((b) => b.n > 2)).toBe(true);
    expect((await api(`${P(big.projectId)}/v1/portfolio/${created.portfolio_id}`, { token: big.token, method: 'DELETE' })).status).toBe(204);
    expect(await partsByBuild()).toHaveLength(1);
  }, 120_000);
});

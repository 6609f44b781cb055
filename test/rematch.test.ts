// Vulnerability data that changes re-matches the affected subjects and rescores their portfolios (cause
// `vulnerability-data`; docs/decisions.md, "Vulnerability data changes"): real surveys of SBOMs analysed
// with fixture OSV records, then records imported, withdrawn and changed, and the re-match delivered on
// the scoring queue as the daily cron sends it; findings, scores and history read through the API.
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalizePurl } from '../src/analysis/components';
import { packageOf } from '../src/analysis/vulns/ecosystem';
import type { OsvRecord, PackageKey } from '../src/analysis/vulns/osv-types';
import { projectStub } from '../src/project/client';
import { rematchProject } from '../src/queues/rematch';
import { runScheduled } from '../src/scheduled';
import { ALL_PURLS, purlRanges, rangesOf, vulnChangesSince, type PurlRange } from '../src/vulndb/changes';
import { importRecords } from '../src/vulndb/import';
import { api, json } from './helpers';
import { dataTenant } from './data-plane';
import { analysed, deliver, letRendersFinish, P, sbom } from './pipeline';

const advisories = Object.values(import.meta.glob('./fixtures/osv/*.json', { import: 'default', eager: true })) as OsvRecord[];
const sboms = import.meta.glob('./fixtures/sbom/*.json', { query: '?raw', import: 'default', eager: true }) as Record<string, string>;

/** Held back at first: it affects ws 7.4.0, which the subject uses. */
const WS = 'GHSA-3h5v-q93c-6h6q';
/** Affects minimist 1.2.5 from the start; later it names another package only. */
const MINIMIST = 'GHSA-xvch-5gv4-984h';
const record = (id: string) => structuredClone(advisories.find((r) => r.id === id)!);

type T = Awaited<ReturnType<typeof dataTenant>>;

/** Delivers every scoring message the project object has waiting, as the scoring queue would, until none is left (as test/portfolios.test.ts does). */
async function settleScoring(t: { projectId: string }): Promise<void> {
  for (let round = 0; round < 10; round++) {
    const work = await scoringWork(t);
    if (!work.length) return;
    for (const w of work) {
      const { id, result } = await deliver({ projectId: t.projectId, portfolioId: w.portfolio_id, generation: w.generation, cause: w.cause }, { queue: 'posture-scoring' });
      expect(result.explicitAcks).toEqual([id]);
    }
  }
  throw new Error(`scoring did not settle: ${JSON.stringify(await scoringWork(t))}`);
}

const scoringWork = (t: { projectId: string }) => runInDurableObject(projectStub(env, t.projectId), (_i, state) =>
  state.storage.sql.exec<{ portfolio_id: string; generation: number; cause: string }>('SELECT portfolio_id, generation, cause FROM scoring_work').toArray());

/** The `{kind: 'rematch'}` message the cron sends, delivered through the worker's queue handler. */
async function rematch(t: { projectId: string }): Promise<void> {
  const { id, result } = await deliver({ kind: 'rematch', projectId: t.projectId }, { queue: 'posture-scoring' });
  expect(result.explicitAcks).toEqual([id]);
}

const portfolioPath = (t: T, id = '') => `${P(t.projectId)}/v1/portfolio${id ? `/${id}` : ''}`;
async function builtIn(t: T): Promise<string> {
  const { portfolios } = await json(await api(portfolioPath(t), { token: t.token }));
  return portfolios.find((p: any) => p.is_implicit).portfolio_id;
}
const vulnScore = async (t: T) => (await json(await api(`${portfolioPath(t, await builtIn(t))}/state`, { token: t.token }))).score.axes.vuln.score as number;
/** The vuln axis' history, without rows a backfill may add at any time. */
const vulnHistory = async (t: T) => ((await json(await api(`${portfolioPath(t, await builtIn(t))}/history?axis=vuln`, { token: t.token }))).rows as any[])
  .filter((r) => r.cause !== 'backfill');
/** The subject's current vulnerability findings, through the API. */
async function advisoriesOf(t: T, subject: string): Promise<any[]> {
  const page = await json(await api(`${P(t.projectId)}/v1/subject/${subject}/content?limit=10000`, { token: t.token }));
  return page.items.filter((i: any) => i.kind === 'vuln_finding');
}
const matchedAt = (t: { projectId: string }) => runInDurableObject(projectStub(env, t.projectId), (_i, state) =>
  state.storage.sql.exec<{ value: string }>("SELECT value FROM settings WHERE key = 'vulnMatchedAt'").toArray()[0]?.value ?? null);

let t: T;
let other: T;
let firstScore: number;

beforeAll(async () => {
  await importRecords(env.DB, advisories.filter((r) => r.id !== WS), 'fixtures');
  t = await dataTenant('rematch');
  await analysed(t, sbom('shop', [['lodash', '4.17.15'], ['ws', '7.4.0'], ['minimist', '1.2.5']]));
  other = await dataTenant('rematch-other');
  await analysed(other, sbom('quiet', [['lodash', '4.17.15']]));
  await settleScoring(t);
  await settleScoring(other);
  firstScore = await vulnScore(t);
}, 60_000);

describe('re-matching after the vulnerability data changed', () => {
  it('a new advisory for a package a subject uses becomes its finding, and the portfolio is rescored with cause vulnerability-data', async () => {
    expect((await advisoriesOf(t, 'shop')).map((f) => f.data.advisory_id)).not.toContain(WS);
    expect(await matchedAt(t)).toBeNull();

    expect(await importRecords(env.DB, [record(WS)], 'rematch-test')).toMatchObject({ inserted: 1 });
    await rematch(t);

    const ws = (await advisoriesOf(t, 'shop')).filter((f) => f.data.advisory_id === WS);
    // The same row the analysis would have written: key, component, fix versions, where it came from.
    expect(ws).toEqual([expect.objectContaining({
      key: `${WS}|pkg:npm/ws@7.4.0`, name: 'ws', version: '7.4.0', purl: 'pkg:npm/ws@7.4.0',
      data: expect.objectContaining({ advisory_id: WS, component_key: 'pkg:npm/ws@7.4.0', fixed_version: '7.5.10', fix_version: '7.5.10', source: 'pkg:npm/ws@7.4.0' }),
    })]);
    // The other advisories of the subject are as they were.
    expect((await advisoriesOf(t, 'shop')).map((f) => f.data.advisory_id)).toContain(MINIMIST);

    await settleScoring(t);
    expect(await vulnScore(t)).toBeLessThan(firstScore);
    expect((await vulnHistory(t)).at(-1)).toMatchObject({ axis: 'vuln', cause: 'vulnerability-data' });
    const rank = await json(await api(`${portfolioPath(t, await builtIn(t))}/rank`, { token: t.token }));
    const row = rank.rows.find((r: any) => r.item_key === 'pkg:npm/ws');
    expect(row.findings.map((f: any) => f.finding_key)).toContain(WS);
    expect(await matchedAt(t)).not.toBeNull();
  });

  it('a project whose subjects do not use the changed package is not rescored', async () => {
    const before = await vulnHistory(other);
    const score = await vulnScore(other);
    await rematch(other);
    expect(await scoringWork(other)).toEqual([]);
    expect(await vulnHistory(other)).toEqual(before);
    expect(await vulnScore(other)).toBe(score);
    const stale = await runInDurableObject(projectStub(env, other.projectId), (_i, state) =>
      state.storage.sql.exec<{ n: number }>('SELECT count(*) AS n FROM subject_scores WHERE stale').one().n);
    expect(stale).toBe(0);
    expect(await matchedAt(other)).not.toBeNull();
  });

  it('a re-match without new data changes nothing and rescores nothing', async () => {
    const before = await vulnHistory(t);
    const since = await matchedAt(t);
    expect(await rematchProject(env, t.projectId)).toMatchObject({ since, mode: 'none', components: 0, subjects: 0 });
    expect(await scoringWork(t)).toEqual([]);
    expect(await vulnHistory(t)).toEqual(before);
  });

  it('a withdrawn record takes its finding away again', async () => {
    const withScore = await vulnScore(t);
    const withdrawn = { ...record(WS), modified: '2030-01-01T00:00:00Z', withdrawn: '2030-01-01T00:00:00Z' };
    expect(await importRecords(env.DB, [withdrawn], 'rematch-test')).toMatchObject({ updated: 1 });
    await rematch(t);
    expect((await advisoriesOf(t, 'shop')).map((f) => f.data.advisory_id)).not.toContain(WS);
    await settleScoring(t);
    expect(await vulnScore(t)).toBeGreaterThan(withScore);
    expect((await vulnHistory(t)).at(-1)).toMatchObject({ axis: 'vuln', cause: 'vulnerability-data' });
  });

  it('a record that no longer names a package takes its findings of that package away', async () => {
    const moved = record(MINIMIST);
    moved.modified = '2030-01-01T00:00:00Z';
    moved.affected = moved.affected!.map((a) => ({ ...a, package: { ecosystem: 'npm', name: 'minimist-elsewhere' } }));
    await importRecords(env.DB, [moved], 'rematch-test');
    // Its package rows name only the new package: the finding is found by its advisory.
    expect(await rematchProject(env, t.projectId)).toMatchObject({ mode: 'packages', subjects: 1 });
    expect((await advisoriesOf(t, 'shop')).map((f) => f.data.advisory_id)).not.toContain(MINIMIST);
    await settleScoring(t);
    expect((await vulnHistory(t)).at(-1)).toMatchObject({ cause: 'vulnerability-data' });
  });
});

afterAll(() => letRendersFinish([t, other]));

describe('what changed, and where its components are', () => {
  it('answers the changed records and packages since a time, withdrawn ones included, or "too many" past the caps', async () => {
    const changes = await vulnChangesSince(env.DB, '2000-01-01T00:00:00.000Z');
    expect(changes.complete).toBe(true);
    if (!changes.complete) return;
    expect(changes.records).toEqual(expect.arrayContaining([WS, MINIMIST]));
    expect(changes.packages).toEqual(expect.arrayContaining([{ ecosystem: 'npm', name: 'ws' }, { ecosystem: 'npm', name: 'minimist-elsewhere' }]));
    expect(new Set(changes.records).size).toBe(changes.records.length);
    expect(changes.through).toEqual(expect.any(String));
    expect(await vulnChangesSince(env.DB, '2000-01-01T00:00:00.000Z', { packages: 1, records: 10_000 })).toMatchObject({ complete: false });
    expect(await vulnChangesSince(env.DB, '2000-01-01T00:00:00.000Z', { packages: 10_000, records: 1 })).toMatchObject({ complete: false });
    expect(await vulnChangesSince(env.DB, '2999-01-01T00:00:00.000Z')).toEqual({ through: null, complete: true, packages: [], records: [] });
  });

  it('every component of the fixture SBOMs is inside the ranges of its own package, however OSV spells the name', () => {
    const inside = (range: PurlRange, purl: string) => purl.startsWith(range.prefix) && (range.loose || purl.length === range.prefix.length || '@?#'.includes(purl[range.prefix.length]!));
    const purls = new Set<string>([
      'pkg:pypi/Zope.Interface_x@5.0', 'pkg:nuget/Newtonsoft.Json@13.0.1', 'pkg:npm/%40babel/core@7.0.0', 'pkg:golang/github.com/Foo/bar/v2@v2.0.0',
      'pkg:deb/debian/libssl3@3.0.11-1?upstream=openssl&distro=debian-12', 'pkg:apk/alpine/libcrypto3@3.1.4-r0?origin=openssl', 'pkg:alpine/zlib@1.2.12-r0',
      'pkg:rpm/redhat/openssl-libs@1.1.1k-7.el8?upstream=openssl-1.1.1k-7.el8.src.rpm', 'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1?type=jar',
      'pkg:composer/Laravel/Framework@8.0.0', 'pkg:gem/Rails@6.0.0', 'pkg:cargo/Serde@1.0.0', 'pkg:swift/github.com/apple/swift-nio@2.0.0', 'pkg:hex/Phoenix@1.0.0',
    ]);
    const walk = (value: unknown) => {
      if (Array.isArray(value)) value.forEach(walk);
      else if (value && typeof value === 'object') {
        for (const [k, v] of Object.entries(value)) if (k === 'purl' && typeof v === 'string') purls.add(v); else walk(v);
      }
    };
    for (const text of Object.values(sboms)) walk(JSON.parse(text));
    let checked = 0;
    for (const raw of purls) {
      const purl = normalizePurl(raw);
      const pkg = purl ? packageOf(purl) : null;
      if (!purl || !pkg) continue;
      // As the package's own records name it, and as another spelling that compares equal.
      const spellings: PackageKey[] = [pkg, { ...pkg, name: /^(PyPI|NuGet|Packagist)$/.test(pkg.ecosystem) ? pkg.name.toUpperCase() : pkg.name }];
      for (const spelling of spellings) {
        const ranges = rangesOf([spelling]);
        expect(ranges.some((r) => inside(r, purl)), `${purl} in ${JSON.stringify(ranges)}`).toBe(true);
      }
      checked++;
    }
    expect(checked).toBeGreaterThan(1_000);
    // Exact where the purl spells the name; loose where it need not.
    expect(purlRanges({ ecosystem: 'npm', name: '@babel/core' })).toEqual([{ prefix: 'pkg:npm/%40babel/core', loose: false }]);
    expect(purlRanges({ ecosystem: 'Maven', name: 'org.apache.logging.log4j:log4j-core' })).toEqual([{ prefix: 'pkg:maven/org.apache.logging.log4j/log4j-core', loose: false }]);
    expect(purlRanges({ ecosystem: 'PyPI', name: 'zope.interface' })).toEqual([{ prefix: 'pkg:pypi/zope', loose: true }]);
    expect(purlRanges({ ecosystem: 'Debian:12', name: 'openssl' })).toEqual([{ prefix: 'pkg:deb/', loose: true }]);
    expect(purlRanges({ ecosystem: 'GitHub Actions', name: 'actions/checkout' })).toEqual([]);
    expect(rangesOf([{ ecosystem: 'Debian:12', name: 'openssl' }, { ecosystem: 'Ubuntu:22.04:LTS', name: 'zlib' }, { ecosystem: 'PyPI', name: 'zope' }, { ecosystem: 'PyPI', name: 'zope.interface' }]))
      .toEqual([{ prefix: 'pkg:deb/', loose: true }, { prefix: 'pkg:pypi/zope', loose: true }]);
  });

  it('the project object pages through its current components of ranges, and of advisories', async () => {
    const stub = projectStub(env, t.projectId) as any;
    const whole = await stub.componentsInRanges({ ranges: [ALL_PURLS], limit: 1000 });
    expect(whole.next).toBeNull();
    expect(whole.rows.map((r: any) => r.key).sort()).toEqual(['pkg:npm/lodash@4.17.15', 'pkg:npm/minimist@1.2.5', 'pkg:npm/ws@7.4.0']);
    expect(whole.rows[0]).toMatchObject({ subject: 'shop', survey_id: expect.any(String), attempt: expect.any(Number) });
    const paged: any[] = [];
    let after = null;
    do {
      const page: any = await stub.componentsInRanges({ ranges: [{ prefix: 'pkg:npm/ws', loose: false }, ALL_PURLS, { prefix: 'pkg:npm/lodash', loose: false }], after, limit: 1 });
      expect(page.rows.length).toBeLessThanOrEqual(1);
      paged.push(...page.rows);
      after = page.next;
    } while (after);
    expect(paged.map((r) => r.key)).toEqual(['pkg:npm/ws@7.4.0', ...whole.rows.map((r: any) => r.key), 'pkg:npm/lodash@4.17.15']);
    // `pkg:npm/lodash` is not `pkg:npm/lodash.merge`.
    expect((await stub.componentsInRanges({ ranges: [{ prefix: 'pkg:npm/lod', loose: false }], limit: 10 })).rows).toEqual([]);
    const lodash = await stub.componentsWithAdvisories({ advisories: ['GHSA-35jh-r3h4-6jhm', 'GHSA-29mw-wpgm-hmr9'], limit: 1 });
    expect(lodash.rows).toEqual([expect.objectContaining({ key: 'pkg:npm/lodash@4.17.15', subject: 'shop' })]);
    const second = await stub.componentsWithAdvisories({ advisories: ['GHSA-35jh-r3h4-6jhm', 'GHSA-29mw-wpgm-hmr9'], after: lodash.next, limit: 1 });
    expect(second.rows).toEqual([expect.objectContaining({ key: 'pkg:npm/lodash@4.17.15' })]);
  });
});

describe('the daily trigger', () => {
  it('sends one rematch message per active project on the scoring queue, and the consumer takes both message shapes', async () => {
    const gone = await json(await api(`/api/v1/org/${t.orgId}/project`, { token: t.token, body: { name: 'Deleted soon' } }));
    expect((await api(`/api/v1/project/${gone.uuid}`, { method: 'DELETE', token: t.token })).status).toBe(204);
    const batches: { body: unknown }[][] = [];
    const queue = { sendBatch: async (messages: { body: unknown }[]) => void batches.push(messages), send: async () => {} } as unknown as Queue;
    const scheduledTime = Date.now();
    await runScheduled({ scheduledTime, cron: '17 3 * * *', noRetry() {} } as ScheduledController, { ...env, SCORING_QUEUE: queue } as typeof env);
    // Each message also takes the project's snapshot of the day, as of the cron's time.
    const snapshotAt = new Date(scheduledTime).toISOString();
    const bodies = batches.flat().map((m) => m.body as { kind: string; projectId: string });
    const active = await env.DB.prepare('SELECT id FROM projects WHERE deleted_at IS NULL').all<{ id: string }>();
    expect(bodies.map((b) => b.projectId).sort()).toEqual(active.results.map((p) => p.id).sort());
    expect(bodies).toContainEqual({ kind: 'rematch', projectId: t.projectId, snapshotAt });
    expect(bodies).toContainEqual({ kind: 'rematch', projectId: other.projectId, snapshotAt });
    expect(bodies.map((b) => b.projectId)).not.toContain(gone.uuid);
    expect(batches.every((b) => b.length <= 100)).toBe(true);

    // A project whose storage is still being set up holds nothing to match: acked, not retried.
    const fresh = crypto.randomUUID();
    expect(await rematchProject(env, fresh)).toEqual({ since: null, matchedAt: null, mode: 'none', components: 0, subjects: 0 });
    await rematch({ projectId: crypto.randomUUID() });

    // A malformed rematch message is dropped (acked), as any malformed scoring message.
    const { id, result } = await deliver({ kind: 'rematch', projectId: 'not-a-project' }, { queue: 'posture-scoring' });
    expect(result.explicitAcks).toEqual([id]);
  });
});

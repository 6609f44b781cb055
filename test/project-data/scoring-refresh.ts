// The scoring refresh inside the project object (src/project/scoring-store.ts; docs/scoring.md,
// "Rescoring at scale"), on the benchmark's synthetic subjects written into real storage: the
// components looked at as crypto libraries are those SQL's LIKE over the hints finds, a refresh
// rewrites only the stored findings that changed and leaves the table as a full rewrite would, a
// refresh call stops after REFRESH_ROWS content rows, and a package member's subjects are found by
// its purl range.
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectStub } from '../../src/project/client';
import { seedSlice } from '../../src/routes/dev/bench-seed';
import type { ProjectState } from '../../src/project/project-object';
import { memberSubjects, type PortfolioRow } from '../../src/project/portfolios';
import { LIBRARY_HINTS, LIBRARY_SCAN_ROWS, libraryScanPage, mayBeCryptoLibrary, REFRESH_ROWS, refreshSubject, refreshSubjects, subjectChanged, subjectEvidence, type LibraryScan } from '../../src/project/scoring-store';
import { CRYPTO_LIBRARIES } from '../../src/scoring/crypto-libraries';
import { scoredFindings } from '../../src/scoring/findings';
import { dataTenant } from '../data-plane';
import { letScoringFinish } from '../pipeline';

const inObject = <T>(projectId: string, body: (state: ProjectState) => T): Promise<T> =>
  runInDurableObject(projectStub(env, projectId), (instance) => body((instance as unknown as { state(): ProjectState }).state()));

const SEED = { prefix: 'bench-app', subjects: 1000, findings: 50_000, components: 150, packages: 400, seed: 1 };
const SUBJECTS = 40;
const names = Array.from({ length: SUBJECTS }, (_, i) => `bench-app-${String(i + 1).padStart(4, '0')}`);
const asOf = '2026-11-28T00:00:00.000Z';

type Stored = { rowid: number; id: string; axis: string; finding_key: string; item_key: string | null; penalty: number; detail: string };
const storedOf = (state: ProjectState, subject: string) =>
  state.sql.exec<Stored>('SELECT rowid, id, axis, finding_key, item_key, penalty, detail FROM scored_findings WHERE subject = ? ORDER BY id', subject).toArray();

let projectId: string;

beforeAll(async () => {
  ({ projectId } = await dataTenant('refresh'));
  // The first 40 of the benchmark's 1,000 subjects, as `npm run bench:scoring` writes them (src/routes/dev/bench-seed.ts).
  await seedSlice(env, projectId, SEED, 0, SUBJECTS);
  // The built-in portfolio's first scoring refreshes them too: done before the tests refresh them themselves.
  await letScoringFinish([{ projectId }]);
});

afterAll(() => letScoringFinish([{ projectId }]));

describe('the crypto-library hints', () => {
  it('pick the components SQL LIKE over the hints picks (ASCII letters in either case, nothing else folded)', async () => {
    const names = [
      ...CRYPTO_LIBRARIES.flatMap((l) => [l.name, l.id, ...l.packages, ...l.packages.map((p) => `${p.toUpperCase()}@1.0`)]),
      'pkg:npm/fast-json@1.2.3', 'pkg:maven/org.json/deep-date@2', 'NODE', 'Node.js runtime', 'libSSL1.1', 'lib ssl 1 x 1', 'libssl11',
      'go-stdlib', 'golang.org/x/crypto', 'pkg:npm/\u212Aey', 'ſtdlib', 'İnss', 'nſs', 'OPENſSL', 'оpenssl', 'open\nssl', 'openssl\n', 'Bc-Jdk18On', 'bc_jdk18on', '', 'ab',
    ];
    const checked = await inObject(projectId, (state) => {
      const like = LIBRARY_HINTS.map((h) => `lower(coalesce(?1, ?2)) LIKE '%${h}%'`).join(' OR ');
      const cases = [...names.map((name) => ({ purl: null, name })), ...names.map((purl) => ({ purl, name: 'openssl' }))];
      return cases.map((c) => ({ ...c, sql: state.sql.exec<{ hit: number }>(`SELECT (${like}) AS hit`, c.purl, c.name).one().hit === 1, js: mayBeCryptoLibrary(c) }));
    });
    expect(checked.filter((c) => c.sql !== c.js)).toEqual([]);
    // Both ways of saying it: some hit, some not.
    expect(checked.filter((c) => c.js).length).toBeGreaterThan(100);
    expect(checked.filter((c) => !c.js).length).toBeGreaterThan(10);
  });
});

describe('a refresh', () => {
  it('rewrites only the stored findings that changed, and leaves them as a full rewrite would', async () => {
    const subject = names[3]!;
    const first = await inObject(projectId, (state) => {
      refreshSubject(state, { subject, asOf });
      return storedOf(state, subject);
    });
    expect(first.length).toBeGreaterThan(5);
    // Nothing changed: no row is written again (each keeps its rowid).
    const again = await inObject(projectId, (state) => {
      refreshSubject(state, { subject, asOf });
      return storedOf(state, subject);
    });
    expect(again).toEqual(first);
    // One vulnerability finding's severity changes and one crypto finding goes.
    const gone = first.find((row) => row.id.startsWith('pqc|crypto|'))!.id;
    const changed = await inObject(projectId, (state) => {
      const source = state.sql.exec<{ survey_id: string; attempt: number }>("SELECT survey_id, attempt FROM subject_contents WHERE subject = ? AND kind = 'vuln_finding'", subject).one();
      const vuln = state.sql.exec<{ key: string; data: string }>("SELECT key, data FROM contents WHERE survey_id = ? AND attempt = ? AND kind = 'vuln_finding' ORDER BY key LIMIT 1", source.survey_id, source.attempt).one();
      const data = JSON.parse(vuln.data);
      data.severity = { label: 'critical', score: 9.9 };
      state.sql.exec("UPDATE contents SET data = ? WHERE survey_id = ? AND attempt = ? AND kind = 'vuln_finding' AND key = ?", JSON.stringify(data), source.survey_id, source.attempt, vuln.key);
      const crypto = state.sql.exec<{ survey_id: string; attempt: number }>("SELECT survey_id, attempt FROM subject_contents WHERE subject = ? AND kind = 'crypto_finding'", subject).one();
      state.sql.exec("DELETE FROM contents WHERE survey_id = ? AND attempt = ? AND kind = 'crypto_finding' AND json_extract(data, '$.key') = ?",
        crypto.survey_id, crypto.attempt, gone.slice('pqc|crypto|'.length));
      return `vuln|${data.advisory_id}|${data.component_key}`;
    });
    const { after, expected } = await inObject(projectId, (state) => {
      refreshSubject(state, { subject, asOf });
      return { after: storedOf(state, subject), expected: scoredFindings(subjectEvidence(state, subject).evidence, asOf) };
    });
    expect(after.map(({ rowid: _r, ...row }) => row)).toEqual(expected
      .map((f) => ({ id: f.id, axis: f.axis, finding_key: f.findingKey, item_key: f.itemKey, penalty: f.penalty, detail: JSON.stringify(f.detail) }))
      .sort((a, b) => (a.id < b.id ? -1 : 1)));
    const rewritten = after.filter((row) => first.find((r) => r.id === row.id)?.rowid !== row.rowid).map((row) => row.id);
    expect(rewritten).toEqual([changed]);
    expect(after.some((row) => row.id === gone)).toBe(false);
  });

  it('call stops after REFRESH_ROWS content rows, refreshing at least one subject', async () => {
    const rows = await inObject(projectId, (state) => names.map((subject) => refreshSubject(state, { subject, asOf }).rows));
    expect(rows.reduce((a, b) => a + b, 0)).toBeGreaterThan(REFRESH_ROWS);
    let read = 0;
    const expected = rows.findIndex((n) => (read += n) >= REFRESH_ROWS) + 1;
    expect(await inObject(projectId, (state) => refreshSubjects(state, { subjects: names, asOf }))).toEqual({ refreshed: expected });
    expect(await inObject(projectId, (state) => refreshSubjects(state, { subjects: names.slice(expected), asOf })).then((r) => r.refreshed)).toBeGreaterThan(0);
    // A subject larger than the budget alone is still refreshed.
    const largest = names[rows.indexOf(Math.max(...rows))]!;
    expect(await inObject(projectId, (state) => refreshSubjects(state, { subjects: [largest, names[0]!], asOf }))).toEqual({ refreshed: Math.max(...rows) >= REFRESH_ROWS ? 1 : 2 });
  });
});

describe('a subject with more components than one call reads (issue 22: never blocking)', () => {
  /** The subject's components scanned a page of `limit` rows per call, as the scoring consumer does. */
  const scanInPages = (state: ProjectState, subject: string, limit: number) => {
    let page = libraryScanPage(state, { subject, limit });
    const scan: LibraryScan = { subject, surveyId: page.surveyId, attempt: page.attempt, candidates: [...page.candidates] };
    let pages = 1;
    while (page.next) {
      page = libraryScanPage(state, { subject, from: { surveyId: scan.surveyId!, attempt: scan.attempt, after: page.next }, limit });
      scan.candidates.push(...page.candidates);
      pages++;
    }
    return { scan, pages };
  };

  it('is refreshed only once scanned ahead in pages, with the same evidence and stored findings as read at once', async () => {
    const out = await inObject(projectId, (state) => {
      const subject = names.find((s) => subjectEvidence(state, s).evidence.libraries.length > 0)!;
      refreshSubject(state, { subject, asOf });
      const atOnce = storedOf(state, subject);
      state.sql.exec('DELETE FROM scored_findings WHERE subject = ?', subject);
      const unscanned = refreshSubjects(state, { subjects: [subject, names[0]!], asOf }, 40);
      const { scan, pages } = scanInPages(state, subject, 40);
      const evidence = { stepped: subjectEvidence(state, subject, scan).evidence, atOnce: subjectEvidence(state, subject).evidence };
      const scannedRefresh = refreshSubjects(state, { subjects: [subject], asOf, scanned: scan }, 40);
      return { subject, unscanned, pages, evidence, scannedRefresh, atOnce, stepped: storedOf(state, subject) };
    });
    expect(out.unscanned).toEqual({ refreshed: 0, scanFirst: out.subject });
    expect(out.pages).toBeGreaterThan(2);
    expect(out.evidence.stepped.libraries.length).toBeGreaterThan(0);
    expect(out.evidence.stepped).toEqual(out.evidence.atOnce);
    expect(out.scannedRefresh).toEqual({ refreshed: 1 });
    const withoutRowid = (rows: Stored[]) => rows.map(({ rowid: _r, ...row }) => row);
    expect(withoutRowid(out.stepped)).toEqual(withoutRowid(out.atOnce));
  });

  it('is scored through the scoring queue (scanned ahead) with the stored findings a refresh at once gives', async () => {
    const { projectId: large } = await dataTenant('large-subject');
    await seedSlice(env, large, { ...SEED, subjects: 1, findings: 50 }, 0, 1);
    await letScoringFinish([{ projectId: large }]);
    // Its components copied 400 times over (new keys) make one subject of tens of thousands, then its contents changed.
    await inObject(large, async (state) => {
      state.sql.exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 400)
        INSERT INTO contents (survey_id, attempt, kind, key, purl, name, version, data)
        SELECT c.survey_id, c.attempt, c.kind, c.key || '#' || n.i, c.purl, c.name, c.version, c.data FROM contents c
        JOIN subject_contents s ON s.survey_id = c.survey_id AND s.attempt = c.attempt AND s.kind = c.kind, n
        WHERE s.subject = ? AND c.kind = 'component'`, names[0]!);
      await subjectChanged(state, names[0]!, 'survey');
    });
    await letScoringFinish([{ projectId: large }], 60_000);
    const out = await inObject(large, (state) => {
      const subject = names[0]!;
      const components = state.sql.exec<{ n: number }>("SELECT count(*) AS n FROM contents c JOIN subject_contents s ON s.survey_id = c.survey_id AND s.attempt = c.attempt AND s.kind = c.kind WHERE s.subject = ? AND c.kind = 'component'", subject).one().n;
      const scored = state.sql.exec<{ as_of: string; stale: number }>('SELECT as_of, stale FROM subject_scores WHERE subject = ?', subject).one();
      const viaQueue = storedOf(state, subject);
      refreshSubject(state, { subject, asOf: scored.as_of });
      return { components, scored, viaQueue, atOnce: storedOf(state, subject), libraries: subjectEvidence(state, subject).evidence.libraries.length };
    });
    expect(out.components).toBeGreaterThan(LIBRARY_SCAN_ROWS);
    expect(out.scored.stale).toBe(0);
    expect(out.libraries).toBeGreaterThan(0);
    expect(out.viaQueue.length).toBeGreaterThan(0);
    // Refreshed at once from the same contents as of the same date, not one row differs (none is written again).
    expect(out.atOnce).toEqual(out.viaQueue);
  });

  it('is scanned again when the scan is not of its current analysis attempt', async () => {
    const answer = await inObject(projectId, (state) => {
      const subject = names[5]!;
      const { scan } = scanInPages(state, subject, 40);
      return { subject, again: refreshSubjects(state, { subjects: [subject], asOf, scanned: { ...scan, attempt: scan.attempt + 1 } }, 40) };
    });
    expect(answer.again).toEqual({ refreshed: 0, scanFirst: answer.subject });
  });
});

describe('a package member', () => {
  it('holds the subjects whose current components are the package at any version, qualifier or subpath, and no look-alike', async () => {
    const found = await inObject(projectId, (state) => {
      const purls = ['pkg:npm/forge@1.0.0', 'pkg:npm/forge?arch=x', 'pkg:npm/forge#lib', 'pkg:npm/forge', 'pkg:npm/forge-extra@1', 'pkg:npm/forgeA', 'pkg:npm/forg@1', 'pkg:npm/forge/sub@1'];
      purls.forEach((purl, i) => {
        const survey = `survey-forge-${i}`;
        state.sql.exec("INSERT INTO contents (survey_id, attempt, kind, key, purl, name, version, data) VALUES (?, 1, 'component', ?, ?, 'forge', NULL, '{}')", survey, purl, purl);
        state.sql.exec("INSERT INTO subject_contents (subject, kind, survey_id, attempt) VALUES (?, 'component', ?, 1)", `forge-${i}`, survey);
      });
      // A component of an attempt no subject points at any more.
      state.sql.exec("INSERT INTO contents (survey_id, attempt, kind, key, purl, name, version, data) VALUES ('survey-forge-0', 0, 'component', 'old', 'pkg:npm/forge@0.1', 'forge', NULL, '{}')");
      state.sql.exec("INSERT INTO portfolio_members (portfolio_id, member_type, value, added_at) VALUES ('forge-portfolio', 'package', 'pkg:npm/forge', '')");
      return memberSubjects(state, { id: 'forge-portfolio', isImplicit: false } as PortfolioRow);
    });
    expect(found).toEqual(['forge-0', 'forge-1', 'forge-2', 'forge-3']);
  });
});

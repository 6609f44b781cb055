// Local benchmarks only (`POST /api/v1/dev/bench-seed` and `/rescore`, behind DEV_SECRET): synthetic but
// realistically shaped analysis results written straight into a project's contents, as if every subject
// had been surveyed. `npm run bench:scoring` scores a 1,000-subject, 50,000-finding project without
// uploading a thousand bundles.
//
// The data (./bench-catalogue.ts, ./bench-subjects.ts) is generated here, in the Worker, from the
// parameters and a seed (a subject's from its index alone), so a slice of subjects is one call and
// slices go one after another: the object answers other requests between them. The object only runs
// the statements (its dev-only `devSql`, src/project/dev-sql.ts), so it holds no benchmark code.
import type { Env } from '../../env';
import { newOrderedId, nowIso } from '../../lib/ids';
import { withProjectWork } from '../../project/client';
import type { ContentKind } from '../../analysis/types';
import type { DevSqlAnswer, DevStatement } from '../../project/dev-sql';
import { importRecords } from '../../vulndb/import';
import { benchRecords, catalogueOf, popularPackages, type Catalogue } from './bench-catalogue';
import { findingTargets, subjectName, subjectRows, type BenchSeedCounts, type BenchSeedParams } from './bench-subjects';

export interface BenchSeedRequest extends BenchSeedParams {
  projectId: string;
  /** Subjects per call to the project object. */
  slice: number;
  /** Whether the synthetic OSV records go into the vulnerability database (simulation checks upgrades against them). */
  vulndb: boolean;
  /** Whether every portfolio is then scored from scratch (`rescoreAll`). */
  score: boolean;
}

export interface Rescored {
  portfolios: string[];
  subjects: number;
}

const ATTEMPT = 1;
const SEED_KINDS: ContentKind[] = ['component', 'crypto_asset', 'crypto_finding', 'vuln_finding'];
const INSERT = 'INSERT OR REPLACE INTO contents (survey_id, attempt, kind, key, purl, name, version, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)';
// The rows the subject's pointers held before are queued for deletion by the object's alarm, as a finished analysis does.
const PURGE_PREVIOUS = "INSERT INTO content_purges (survey_id, attempt, kind, queued_at) SELECT DISTINCT survey_id, attempt, '*', ? FROM subject_contents WHERE subject = ? ON CONFLICT DO NOTHING";
const UPSERT_SUBJECT = `INSERT INTO subjects (name, first_seen, last_seen, criticality, latest_survey_id) VALUES (?, ?, ?, ?, ?)
  ON CONFLICT (name) DO UPDATE SET last_seen = excluded.last_seen, criticality = excluded.criticality, latest_survey_id = excluded.latest_survey_id`;

/**
 * One subject, one transaction: its rows under a survey id of its own, then its content pointers and
 * its subject row; its scored findings are marked stale.
 */
function subjectStatements(params: BenchSeedParams, catalogue: Catalogue, index: number, target: number): { statements: DevStatement[]; counts: BenchSeedCounts } {
  const name = subjectName(params.prefix, index);
  const { criticality, rows, counts } = subjectRows(params, catalogue, index, target);
  const surveyId = newOrderedId();
  const now = nowIso();
  const statements: DevStatement[] = [
    { sql: PURGE_PREVIOUS, rows: [[now, name]] },
    { sql: 'DELETE FROM subject_contents WHERE subject = ?', rows: [[name]] },
    { sql: INSERT, rows: rows.map((row) => [surveyId, ATTEMPT, row.kind, row.key, row.purl, row.name, row.version, row.data]) },
    { sql: 'INSERT INTO subject_contents (subject, kind, survey_id, attempt) VALUES (?, ?, ?, ?)', rows: SEED_KINDS.map((kind) => [name, kind, surveyId, ATTEMPT]) },
    { sql: UPSERT_SUBJECT, rows: [[name, now, now, criticality, surveyId]] },
    { sql: 'UPDATE subject_scores SET stale = 1 WHERE subject = ?', rows: [[name]] },
  ];
  return { statements, counts };
}

/** Writes the subjects from `from` on, `count` of them, in one call to the project object. */
export async function seedSlice(env: Env, projectId: string, params: BenchSeedParams, from: number, count: number): Promise<BenchSeedCounts> {
  const catalogue = catalogueOf(params);
  const targets = findingTargets(params);
  const totals: BenchSeedCounts = { subjects: 0, components: 0, cryptoAssets: 0, vulnFindings: 0, cryptoFindings: 0 };
  const batches: DevStatement[][] = [];
  for (let index = from; index < Math.min(params.subjects, from + count); index++) {
    const { statements, counts } = subjectStatements(params, catalogue, index, targets[index]!);
    batches.push(statements);
    for (const key of Object.keys(totals) as (keyof BenchSeedCounts)[]) totals[key] += counts[key];
  }
  await withProjectWork<DevSqlAnswer>(env, projectId, (stub) => stub.devSql({ batches, wake: true }));
  return totals;
}

/** The seed `POST /api/v1/dev/bench-seed` answers: what was written, how long it took, and package members a portfolio can use. */
export async function seedBench(env: Env, request: BenchSeedRequest) {
  const { projectId, slice, vulndb, score, ...params } = request;
  const started = Date.now();
  const records = benchRecords(params);
  if (vulndb) await importRecords(env.DB, records, 'bench-seed');
  const vulndbMs = Date.now() - started;
  const totals: BenchSeedCounts = { subjects: 0, components: 0, cryptoAssets: 0, vulnFindings: 0, cryptoFindings: 0 };
  for (let from = 0; from < params.subjects; from += slice) {
    const counts = await seedSlice(env, projectId, params, from, slice);
    for (const key of Object.keys(totals) as (keyof BenchSeedCounts)[]) totals[key] += counts[key];
  }
  const rescored = score ? await rescoreAll(env, projectId) : null;
  return {
    subjects: totals.subjects, components: totals.components, crypto_assets: totals.cryptoAssets, vuln_findings: totals.vulnFindings, crypto_findings: totals.cryptoFindings,
    advisories: records.length, prefix: params.prefix, popular_packages: popularPackages(params), ms: Date.now() - started, vulndb_ms: vulndbMs, rescore: rescored,
  };
}

/**
 * Scoring from scratch: every subject's scored findings are marked stale (the next scoring recomputes
 * them from contents) and every portfolio is asked to be scored. Answers the portfolios asked for.
 */
export async function rescoreAll(env: Env, projectId: string): Promise<Rescored> {
  const answer = await withProjectWork<DevSqlAnswer>(env, projectId, (stub) => stub.devSql({
    batches: [[{ sql: 'UPDATE subject_scores SET stale = 1' }, { sql: 'SELECT count(*) AS n FROM subjects' }]],
    scoreEveryPortfolio: true,
  }));
  return { portfolios: answer.portfolios, subjects: Number(answer.batches[0]!.rows[1]![0]!.n) };
}

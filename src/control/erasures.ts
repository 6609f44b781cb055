// Erasing what the retention purge removed from the control plane (docs/retention.md): the daily cron
// works the `erasures` queue in bounded slices after the purge. A project's R2 objects and Durable
// Object storage are erased by the project's own object, one slice per call (each call is its own
// invocation, with its own limits); an organization's activity entries a few thousand rows per
// statement; people who belong to no organization any more are forgotten (src/control/people-retention.ts).
// Every step is idempotent and its progress is kept in the row, so an erasure interrupted halfway (a
// failure, the run's allowance spent, an invocation cut short) continues on the next run.
import type { Env } from '../env';
import { withProjectWork } from '../project/client';
import type { ErasureProgress } from '../project/project-object';
import { ERASURE_LIMITS, RunAllowance, type ErasureLimits } from './erasure-allowance';
import { forgetFormerPeople, type PeopleSummary } from './people-retention';

export { ERASURE_LIMITS, type ErasureLimits };

/** Sign-in links are deleted this long after they expired (they carry the address they were sent to). */
export const SIGN_IN_LINKS_KEPT_MS = 86_400_000;

export interface ErasureSummary {
  /** Projects whose erasure finished in this run. */
  projects: string[];
  /** Organizations whose activity was erased in this run. */
  organizations: string[];
  /** R2 objects and activity rows deleted in this run. */
  objects: number;
  activityRows: number;
  people: PeopleSummary;
  signInLinks: number;
  /** OAuth client registration records (by a hash of the client's address) older than a day, deleted. */
  registrations: number;
  /** Erasures that failed in this run (kept, with the error, for the next run). */
  failures: number;
  /** Erasures still queued after this run. */
  pending: number;
}

interface ErasureRow {
  kind: 'project' | 'organization' | 'person';
  target_id: string;
  org_id: string | null;
  step: string;
  erased: number;
}

const changes = (result: D1Result) => Number(result.meta?.changes ?? 0);

/** Records a slice's progress (or failure) on the row, for the next run and for operators. */
async function note(d1: D1Database, row: ErasureRow, at: string, fields: { step: string; erased: number; error?: unknown }): Promise<void> {
  const failed = fields.error !== undefined;
  await d1.prepare(`UPDATE erasures SET step = ?3, erased = erased + ?4, updated_at = ?5,
                    failures = failures + ?6, last_error = CASE WHEN ?6 = 1 THEN ?7 ELSE last_error END
                    WHERE kind = ?1 AND target_id = ?2`)
    .bind(row.kind, row.target_id, fields.step, fields.erased, at, failed ? 1 : 0, failed ? String(fields.error).slice(0, 1_000) : null).run();
}

/**
 * A purged project: its object closes and aborts unfinished uploads, deletes the project's R2 objects
 * slice by slice, then erases its own storage. Answers whether the erasure finished.
 */
async function eraseProject(env: Env, row: ErasureRow, at: string, limits: ErasureLimits, allowance: RunAllowance, summary: ErasureSummary): Promise<boolean> {
  let step = row.step;
  let deleted = 0;
  try {
    for (;;) {
      if (!allowance.call()) break;
      const progress = await withProjectWork<ErasureProgress>(env, row.target_id, (stub) => stub.eraseSlice({ projectId: row.target_id, maxKeys: limits.sliceKeys, batch: limits.batchKeys }));
      deleted += progress.deleted;
      summary.objects += progress.deleted;
      step = progress.step;
      if (progress.done) {
        await env.DB.prepare("DELETE FROM erasures WHERE kind = 'project' AND target_id = ?1").bind(row.target_id).run();
        log('info', 'project erased', { projectId: row.target_id, orgId: row.org_id, objects: row.erased + deleted });
        return true;
      }
    }
    if (step !== row.step || deleted) await note(env.DB, row, at, { step, erased: deleted });
    return false;
  } catch (error) {
    summary.failures += 1;
    log('error', 'project erasure failed; it continues on the next run', { projectId: row.target_id, step, error: String(error) });
    await note(env.DB, row, at, { step, erased: deleted, error });
    return false;
  }
}

/** A purged organization: its activity entries, `activityRows` per statement. */
async function eraseOrganization(env: Env, row: ErasureRow, at: string, limits: ErasureLimits, allowance: RunAllowance, summary: ErasureSummary): Promise<boolean> {
  let deleted = 0;
  try {
    for (;;) {
      if (!allowance.query(2)) break;
      const result = await env.DB.prepare('DELETE FROM activity WHERE rowid IN (SELECT rowid FROM activity WHERE org_id = ?1 LIMIT ?2)')
        .bind(row.target_id, limits.activityRows).run();
      deleted += changes(result);
      summary.activityRows += changes(result);
      if (changes(result) < limits.activityRows) {
        await env.DB.prepare("DELETE FROM erasures WHERE kind = 'organization' AND target_id = ?1").bind(row.target_id).run();
        log('info', 'organization activity erased', { orgId: row.target_id, rows: row.erased + deleted });
        return true;
      }
    }
    if (deleted) await note(env.DB, row, at, { step: row.step, erased: deleted });
    return false;
  } catch (error) {
    summary.failures += 1;
    log('error', 'organization erasure failed; it continues on the next run', { orgId: row.target_id, error: String(error) });
    await note(env.DB, row, at, { step: row.step, erased: deleted, error });
    return false;
  }
}

/**
 * The cron's erasure work, after the retention purge: purged projects and organizations (oldest
 * first), then people who belong to no organization any more, then expired sign-in links. Failures of
 * one erasure are recorded on its row and never stop the others; only a failing D1 throws.
 */
export async function runErasures(env: Env, now = new Date(), limits: ErasureLimits = ERASURE_LIMITS): Promise<ErasureSummary> {
  const at = now.toISOString();
  const allowance = new RunAllowance(limits.objectCalls, limits.queries, Date.now() + limits.timeMs);
  const summary: ErasureSummary = {
    projects: [], organizations: [], objects: 0, activityRows: 0, signInLinks: 0, registrations: 0, failures: 0, pending: 0,
    people: { queued: 0, forgotten: [], canceled: 0, ratings: 0 },
  };

  allowance.query();
  const { results: rows } = await env.DB
    .prepare("SELECT kind, target_id, org_id, step, erased FROM erasures WHERE kind IN ('project', 'organization') ORDER BY queued_at, target_id LIMIT ?1")
    .bind(limits.objectCalls + 10).all<ErasureRow>();
  for (const row of rows) {
    if (allowance.queries < 4) break;
    if (row.kind === 'project' && allowance.calls <= 0) continue;
    allowance.query(2); // the row's own update or delete
    if (row.kind === 'project') {
      if (await eraseProject(env, row, at, limits, allowance, summary)) summary.projects.push(row.target_id);
    } else if (await eraseOrganization(env, row, at, limits, allowance, summary)) {
      summary.organizations.push(row.target_id);
    }
  }

  summary.people = await forgetFormerPeople(env, now, limits, allowance, summary);

  if (allowance.query()) {
    const cutoff = new Date(now.getTime() - SIGN_IN_LINKS_KEPT_MS).toISOString();
    const result = await env.DB.prepare('DELETE FROM sign_in_links WHERE rowid IN (SELECT rowid FROM sign_in_links WHERE expires_at < ?1 LIMIT 10000)').bind(cutoff).run();
    summary.signInLinks = changes(result);
  }

  if (allowance.query()) {
    // They only count registrations per address per hour (src/middleware/public-limits.ts).
    const cutoff = new Date(now.getTime() - SIGN_IN_LINKS_KEPT_MS).toISOString();
    const result = await env.DB.prepare('DELETE FROM oauth_registrations WHERE rowid IN (SELECT rowid FROM oauth_registrations WHERE created_at < ?1 LIMIT 10000)').bind(cutoff).run();
    summary.registrations = changes(result);
  }

  if (allowance.query()) {
    summary.pending = Number((await env.DB.prepare('SELECT count(*) AS n FROM erasures').first<{ n: number }>())?.n ?? 0);
  }
  return summary;
}

function log(level: 'info' | 'error', message: string, fields: Record<string, unknown>): void {
  (level === 'error' ? console.error : console.log)(JSON.stringify({ level, message, ...fields }));
}

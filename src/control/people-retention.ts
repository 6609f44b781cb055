// People who belong to no organization any more lose their name and email once the retention of their
// last membership ended (docs/retention.md; docs/decisions.md "Retention and erasure (issue 12)").
// Their id stays everywhere (activity, memberships, credentials, ratings), so the log stays
// consistent: the `users` row keeps the id with a tombstone, activity entries naming them lose the
// `email` (and, on their own renames, the `name`), their criticality ratings in every project of
// their former organizations lose the email. Worked by the daily cron through the `erasures` queue
// (kind `person`), in bounded slices that resume where they stopped.
import { bumpAccessEpoch } from '../auth/access-cache';
import type { Env } from '../env';
import { withProjectWork } from '../project/client';
import type { ErasureLimits, RunAllowance } from './erasure-allowance';

/** The name an erased person is shown with; their email becomes `erased:{id}` (never an address, so never signs in). */
export const ERASED_NAME = 'Former member';
export const ERASED_EMAIL_PREFIX = 'erased:';

/** A person's record is kept at least this long after it was created (never erased while signing up). */
const MIN_AGE_DAYS = 1;

export interface PeopleSummary {
  /** People newly queued for erasure. */
  queued: number;
  /** People whose name and email are gone since this run. */
  forgotten: string[];
  /** Queued people who became members again (their erasure was dropped). */
  canceled: number;
  /** Criticality ratings whose email was removed. */
  ratings: number;
}

/**
 * SQL: the person (`user`, an SQL expression) belongs to no organization any more and the retention
 * of every membership they had ended (removed, or their organization deleted, longer than that
 * organization's `retentionDays` ago; memberships of purged organizations are gone with them), and no
 * credential of theirs still works (an API token or upload pass outlives a removal until it expires).
 * `at` is the SQL parameter holding the time.
 */
export const formerPerson = (user: string, at: string) => `(
  NOT EXISTS (SELECT 1 FROM org_members m JOIN organizations o ON o.id = m.org_id
    WHERE m.user_id = ${user} AND (m.removed_at IS NULL OR julianday(m.removed_at) + o.retention_days > julianday(${at})))
  AND NOT EXISTS (SELECT 1 FROM credentials c WHERE c.user_id = ${user} AND c.revoked_at IS NULL AND c.expires_at > ${at}))`;

interface QueuedPerson {
  id: string;
  cursor: string | null;
}

/**
 * Queues the people whose retention ended, scrubs their ratings project by project (in project id
 * order, the cursor remembering the last one done), then replaces their name and email. Stops when
 * the run's allowance is spent. A failed erasure is counted on `summary` (the run's).
 */
export async function forgetFormerPeople(env: Env, now: Date, limits: ErasureLimits, allowance: RunAllowance, summary: { failures: number }): Promise<PeopleSummary> {
  const at = now.toISOString();
  const people: PeopleSummary = { queued: 0, forgotten: [], canceled: 0, ratings: 0 };
  const d1 = env.DB;

  if (!allowance.query()) return people;
  const queued = await d1.prepare(`INSERT OR IGNORE INTO erasures (kind, target_id, org_id, step, queued_at, updated_at)
      SELECT 'person', u.id, NULL, 'projects', ?1, ?1 FROM users u
      WHERE substr(u.email, 1, ${ERASED_EMAIL_PREFIX.length}) <> '${ERASED_EMAIL_PREFIX}'
        AND julianday(u.created_at) + ${MIN_AGE_DAYS} <= julianday(?1)
        AND NOT EXISTS (SELECT 1 FROM erasures e WHERE e.kind = 'person' AND e.target_id = u.id)
        AND ${formerPerson('u.id', '?1')}
      LIMIT ?2`).bind(at, limits.people).run();
  people.queued = Number(queued.meta?.changes ?? 0);

  if (!allowance.query(4)) return people;
  const { results: waiting } = await d1
    .prepare("SELECT target_id AS id, cursor FROM erasures WHERE kind = 'person' ORDER BY queued_at, target_id LIMIT ?1")
    .bind(limits.people).all<QueuedPerson>();
  if (!waiting.length) return people;
  const ids = JSON.stringify(waiting.map((p) => p.id));

  // Invited back meanwhile: no longer a former member.
  const { results: still } = await d1
    .prepare(`SELECT value AS id FROM json_each(?1) WHERE ${formerPerson('json_each.value', '?2')}`).bind(ids, at).all<{ id: string }>();
  const eligible = new Set(still.map((r) => r.id));
  const dropped = waiting.filter((p) => !eligible.has(p.id)).map((p) => p.id);
  if (dropped.length) {
    const result = await d1.prepare("DELETE FROM erasures WHERE kind = 'person' AND target_id IN (SELECT value FROM json_each(?1))").bind(JSON.stringify(dropped)).run();
    people.canceled = Number(result.meta?.changes ?? 0);
  }
  const persons = waiting.filter((p) => eligible.has(p.id));
  if (!persons.length) return people;

  // Every project (deleted or not) of the organizations they were members of, in id order.
  const { results: pairs } = await d1.prepare(`SELECT m.user_id AS user_id, m.org_id AS org_id, p.id AS project_id
      FROM org_members m JOIN projects p ON p.org_id = m.org_id
      WHERE m.user_id IN (SELECT value FROM json_each(?1)) ORDER BY p.id`)
    .bind(JSON.stringify(persons.map((p) => p.id))).all<{ user_id: string; org_id: string; project_id: string }>();
  const cursorOf = new Map(persons.map((p) => [p.id, p.cursor]));
  const byProject = new Map<string, string[]>();
  for (const pair of pairs) {
    const cursor = cursorOf.get(pair.user_id);
    if (cursor && pair.project_id <= cursor) continue;
    const users = byProject.get(pair.project_id) ?? [];
    if (!users.includes(pair.user_id)) users.push(pair.user_id);
    byProject.set(pair.project_id, users);
  }

  // Project by project, in id order: every project up to the last one done is done for all of them.
  let lastDone: string | null = null;
  let stoppedAt: string | null = null;
  for (const [projectId, users] of byProject) {
    if (!allowance.call()) {
      stoppedAt = projectId;
      break;
    }
    try {
      people.ratings += Number(await withProjectWork<number>(env, projectId, (stub) => stub.forgetPeople(users)));
    } catch (error) {
      summary.failures += 1;
      console.error(JSON.stringify({ level: 'error', message: 'forgetting people in a project failed; retried on the next run', projectId, error: String(error) }));
      stoppedAt = projectId;
      break;
    }
    lastDone = projectId;
  }

  const unfinished = new Set(stoppedAt === null ? [] : [...byProject.entries()].filter(([projectId]) => projectId >= stoppedAt!).flatMap(([, users]) => users));
  const finished = persons.map((p) => p.id).filter((id) => !unfinished.has(id));
  if (unfinished.size && lastDone !== null && allowance.query()) {
    await d1.prepare(`UPDATE erasures SET cursor = max(IFNULL(cursor, ''), ?2), updated_at = ?3
                      WHERE kind = 'person' AND target_id IN (SELECT value FROM json_each(?1))`).bind(JSON.stringify([...unfinished]), lastDone, at).run();
  }
  if (finished.length && allowance.query(5)) {
    await forgetPeople(d1, finished, at);
    people.forgotten.push(...finished);
    // Their activity entries and names changed: every organization they were in reads them afresh.
    const orgIds = [...new Set(pairs.filter((p) => finished.includes(p.user_id)).map((p) => p.org_id))];
    await Promise.all(orgIds.map((orgId) => bumpAccessEpoch(env, orgId)));
  }
  return people;
}

/**
 * The last step, in one batch and only for those still former members (every write is guarded, so
 * someone invited back meanwhile keeps everything): activity entries of their organizations that
 * name them lose the email (and their own renames the name), their sign-in links go, their record
 * keeps only the id; their queue rows go.
 */
async function forgetPeople(d1: D1Database, userIds: string[], at: string): Promise<void> {
  const ids = JSON.stringify(userIds);
  const listed = (column: string) => `${column} IN (SELECT value FROM json_each(?1))`;
  const theirOrgs = `(SELECT org_id FROM org_members WHERE ${listed('user_id')})`;
  const mentioned = "json_extract(activity.data, '$.userId')";
  await d1.batch([
    d1.prepare(`UPDATE activity SET data = json_remove(data, '$.email')
                WHERE org_id IN ${theirOrgs} AND ${listed(mentioned)} AND json_type(data, '$.email') IS NOT NULL AND ${formerPerson(mentioned, '?2')}`).bind(ids, at),
    d1.prepare(`UPDATE activity SET data = json_remove(data, '$.name')
                WHERE org_id IN ${theirOrgs} AND ${listed('actor_id')} AND action = 'user.updated' AND ${formerPerson('activity.actor_id', '?2')}`).bind(ids, at),
    d1.prepare(`DELETE FROM sign_in_links WHERE email IN (SELECT u.email FROM users u WHERE ${listed('u.id')} AND ${formerPerson('u.id', '?2')})`).bind(ids, at),
    d1.prepare(`UPDATE users SET email = '${ERASED_EMAIL_PREFIX}' || id, name = '${ERASED_NAME}', timezone = NULL, last_context = NULL
                WHERE ${listed('id')} AND ${formerPerson('users.id', '?2')}`).bind(ids, at),
    d1.prepare(`DELETE FROM erasures WHERE kind = 'person' AND ${listed('target_id')}`).bind(ids),
  ]);
}

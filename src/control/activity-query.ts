// Reading the activity log (spec 4.14): who may see which entries, filters, and keyset paging over
// (sort key, created_at, id). Every page query is an index range scan of one of the activity
// indexes (org_id first) that stops after `limit + 1` rows; `total` is a COUNT over the same filters.
import { actsAsPerson, reachableProjectIds } from '../auth/access';
import type { AccessCache } from '../auth/access-cache';
import type { Principal } from '../auth/principal';
import { invalidParameter, notFound } from '../lib/errors';
import { ACTIVITY_ACTIONS, type ActivityAction } from './activity';

export type ActivitySortBy = 'createdAt' | 'action';
export type SortDir = 'asc' | 'desc';

export interface ActivityQuery {
  /** A project id, or `none` for organization-level entries only. */
  projectId?: string;
  userId?: string;
  actions?: readonly ActivityAction[];
  limit: number;
  sortBy: ActivitySortBy;
  sortDir: SortDir;
  after?: string;
  before?: string;
}

export interface ActivityEntry {
  id: string;
  action: string;
  actor: { id: string; email: string; name: string; kind: string } | null;
  projectId: string | null;
  project: { id: string; name: string } | null;
  createdAt: string;
  data: Record<string, unknown>;
  traceId?: string;
}

export interface ActivityPage {
  entries: ActivityEntry[];
  pagination: { firstId: string | null; lastId: string | null; hasMore: boolean; total: number };
}

/** What the caller may see: a session its organization's own entries and its reachable projects'; a token its project's. */
export type ActivityScope =
  | { kind: 'session'; orgId: string; reachableProjectIds: readonly string[] }
  | { kind: 'project'; orgId: string; projectId: string };

export function activityScope(principal: Principal, reachableProjectIds: readonly string[]): ActivityScope {
  if (actsAsPerson(principal)) return { kind: 'session', orgId: principal.orgId, reachableProjectIds };
  return { kind: 'project', orgId: principal.orgId, projectId: principal.projectId ?? '' };
}

interface Where {
  clauses: string[];
  params: unknown[];
}

function visibility(scope: ActivityScope): Where {
  if (scope.kind === 'project') return { clauses: ['a.org_id = ?', 'a.project_id = ?'], params: [scope.orgId, scope.projectId] };
  // One JSON parameter, not one per project: D1 caps bound parameters at 100 per statement.
  return {
    clauses: ['a.org_id = ?', '(a.project_id IS NULL OR a.project_id IN (SELECT value FROM json_each(?)))'],
    params: [scope.orgId, JSON.stringify(scope.reachableProjectIds)],
  };
}

function canSeeProject(scope: ActivityScope, projectId: string): boolean {
  return scope.kind === 'project' ? scope.projectId === projectId : scope.reachableProjectIds.includes(projectId);
}

function filters(scope: ActivityScope, query: ActivityQuery): Where {
  const where = visibility(scope);
  if (query.projectId === 'none') where.clauses.push('a.project_id IS NULL');
  else if (query.projectId) {
    where.clauses.push('a.project_id = ?');
    where.params.push(query.projectId);
  }
  if (query.userId) {
    where.clauses.push('a.actor_id = ?');
    where.params.push(query.userId);
  }
  const actions = [...new Set(query.actions ?? [])];
  if (actions.length) {
    // One name as an equality lets the planner walk activity_org_action in created_at order.
    where.clauses.push(actions.length === 1 ? 'a.action = ?' : `a.action IN (${actions.map(() => '?').join(', ')})`);
    where.params.push(...actions);
  }
  return where;
}

const SORT_COLUMNS: Record<ActivitySortBy, string[]> = {
  createdAt: ['a.created_at', 'a.id'],
  action: ['a.action', 'a.created_at', 'a.id'],
};

interface CursorRow {
  id: string;
  action: string;
  created_at: string;
}

interface EntryRow {
  id: string;
  action: string;
  project_id: string | null;
  project_name: string | null;
  actor_id: string | null;
  actor_kind: string;
  actor_email: string | null;
  actor_name: string | null;
  data: string;
  trace_id: string | null;
  created_at: string;
}

function toEntry(row: EntryRow): ActivityEntry {
  const entry: ActivityEntry = {
    id: row.id,
    action: row.action,
    actor: row.actor_id ? { id: row.actor_id, email: row.actor_email ?? '', name: row.actor_name ?? '', kind: row.actor_kind } : null,
    projectId: row.project_id,
    project: row.project_id ? { id: row.project_id, name: row.project_name ?? '' } : null,
    createdAt: row.created_at,
    data: JSON.parse(row.data) as Record<string, unknown>,
  };
  if (row.trace_id) entry.traceId = row.trace_id;
  return entry;
}

/** 404 for a project the caller cannot see, or a person who never belonged to the organization. */
async function checkFilterTargets(d1: D1Database, scope: ActivityScope, query: ActivityQuery): Promise<void> {
  if (query.projectId && query.projectId !== 'none' && !canSeeProject(scope, query.projectId)) {
    throw notFound('No project with this id is visible in the organization.');
  }
  if (query.userId) {
    // Former members count: their entries stay in the log.
    const member = await d1.prepare('SELECT 1 AS found FROM org_members WHERE org_id = ? AND user_id = ?').bind(scope.orgId, query.userId).first();
    if (!member) throw notFound('No such person is or was a member of this organization.');
  }
}

/** The cursor's entry among those the caller may see; 400 naming the parameter otherwise. */
async function findCursor(d1: D1Database, scope: ActivityScope, parameter: 'after' | 'before', id: string): Promise<CursorRow> {
  const where = visibility(scope);
  const row = await d1
    .prepare(`SELECT a.id, a.action, a.created_at FROM activity a WHERE a.id = ? AND ${where.clauses.join(' AND ')}`)
    .bind(id, ...where.params)
    .first<CursorRow>();
  if (!row) throw invalidParameter(parameter, `The cursor ${parameter} names no entry you can see.`);
  return row;
}

/** One page of the log and the count of every matching entry the caller may see. */
export async function queryActivity(d1: D1Database, scope: ActivityScope, query: ActivityQuery): Promise<ActivityPage> {
  if (query.after && query.before) throw invalidParameter('before', 'Pass after or before, never both.');
  const cursorParameter = query.after ? 'after' : query.before ? 'before' : undefined;
  const [, cursor] = await Promise.all([
    checkFilterTargets(d1, scope, query),
    cursorParameter ? findCursor(d1, scope, cursorParameter, (query.after ?? query.before)!) : undefined,
  ]);

  const where = filters(scope, query);
  const columns = SORT_COLUMNS[query.sortBy];
  // `before` walks backwards from the cursor (the closest entries first) and is turned round below.
  const backwards = cursorParameter === 'before';
  const scanDesc = (query.sortDir === 'desc') !== backwards;
  const page: Where = { clauses: [...where.clauses], params: [...where.params] };
  if (cursor) {
    const key = query.sortBy === 'action' ? [cursor.action, cursor.created_at, cursor.id] : [cursor.created_at, cursor.id];
    page.clauses.push(`(${columns.join(', ')}) ${scanDesc ? '<' : '>'} (${key.map(() => '?').join(', ')})`);
    page.params.push(...key);
  }
  const order = columns.map((column) => `${column} ${scanDesc ? 'DESC' : 'ASC'}`).join(', ');

  const [rows, count] = await d1.batch<unknown>([
    d1
      .prepare(
        `SELECT a.id, a.action, a.project_id, p.name AS project_name, a.actor_id, a.actor_kind, u.email AS actor_email,
                u.name AS actor_name, a.data, a.trace_id, a.created_at
         FROM activity a
         LEFT JOIN users u ON u.id = a.actor_id
         LEFT JOIN projects p ON p.id = a.project_id
         WHERE ${page.clauses.join(' AND ')}
         ORDER BY ${order}
         LIMIT ?`,
      )
      .bind(...page.params, query.limit + 1),
    d1.prepare(`SELECT COUNT(*) AS total FROM activity a WHERE ${where.clauses.join(' AND ')}`).bind(...where.params),
  ]);
  const found = rows!.results as EntryRow[];
  const hasMore = found.length > query.limit;
  const kept = found.slice(0, query.limit);
  if (backwards) kept.reverse();
  const entries = kept.map(toEntry);
  return {
    entries,
    pagination: {
      firstId: entries[0]?.id ?? null,
      lastId: entries.at(-1)?.id ?? null,
      hasMore,
      total: (count!.results[0] as { total: number }).total,
    },
  };
}

/**
 * A page of the log as the caller may see it, as JSON text (`entries`, `availableActions`,
 * `pagination`). Every entry is written by a change that bumps the organization's access epoch, so a
 * page can be cached until then; the key names who asks, since visibility depends on it.
 */
export async function activityPageText(d1: D1Database, principal: Principal, query: ActivityQuery, cache?: AccessCache): Promise<string> {
  const viewer = actsAsPerson(principal) ? `user:${principal.userId}` : `project:${principal.projectId}`;
  const read = async (from: D1Database) => {
    // A deleted project's entries (its deletion among them) stay visible to those its teams reached.
    const reach = actsAsPerson(principal) ? await reachableProjectIds(from, principal.orgId, principal.userId, { includeDeleted: true }) : [];
    const page = await queryActivity(from, activityScope(principal, reach), query);
    return JSON.stringify({ entries: page.entries, availableActions: [...ACTIVITY_ACTIONS], pagination: page.pagination });
  };
  return cache ? cache.get(`activity:${viewer}:${JSON.stringify(query)}`, read) : read(d1);
}

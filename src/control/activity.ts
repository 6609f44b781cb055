// The activity log: every mutating operation records who did what (spec 4.14, part 6).
import { getTableColumns, sql, type SQL } from 'drizzle-orm';
import { newOrderedId, nowIso } from '../lib/ids';
import type { ControlDb } from './db';
import { activity } from './schema';

/** Every action name the service records, returned as `availableActions`. */
export const ACTIVITY_ACTIONS = [
  'organization.created',
  'organization.updated',
  'organization.deleted',
  'organization.member.removed',
  'organization.member.invited',
  'organization.member.restored',
  'project.created',
  'project.updated',
  'project.deleted',
  'project.restored',
  'project.purged',
  'team.created',
  'team.updated',
  'team.deleted',
  'team.project.added',
  'team.project.removed',
  'team.projects.replaced',
  'team.role.added',
  'team.roles.replaced',
  'team.member.added',
  'team.member.removed',
  'role.created',
  'role.updated',
  'role.deleted',
  'credential.created',
  'credential.revoked',
  'connected_app.approved',
  'connected_app.disconnected',
  'user.signed_in',
  'user.signed_up',
  'user.signed_out',
  'user.updated',
  'user.preferences.updated',
  'session.switched',
  'survey.started',
  'survey.regenerated',
  'report.regenerated',
  'report.rendered',
  'survey.deleted',
  'survey.restored',
  'bundle.upload.started',
  'bundle.uploaded',
  'portfolio.created',
  'portfolio.updated',
  'portfolio.deleted',
  'portfolio.member.added',
  'portfolio.member.removed',
  'subject.rated',
  'finding.decided',
  'finding.acceptance_expired',
  'vex.imported',
  'notification.destination.created',
  'notification.destination.updated',
  'notification.destination.deleted',
  'notification.destination.secret_rotated',
  'notification.destination.tested',
  'notification.destination.disabled',
  'notification.rule.created',
  'notification.rule.updated',
  'notification.rule.deleted',
] as const;
export type ActivityAction = (typeof ACTIVITY_ACTIONS)[number];

/** Who acted: a person and the kind of credential they used (`session`, `api_token`, `sign_in`, ...). */
export interface Actor {
  userId: string;
  kind: string;
}

export interface ActivityInput {
  orgId: string;
  projectId?: string | null;
  /** The caller (a principal, or a person signing in); null for the system. */
  actor: Actor | null;
  action: ActivityAction;
  data?: Record<string, unknown>;
  traceId?: string | null;
}

export function activityRow(input: ActivityInput) {
  return {
    id: newOrderedId(),
    orgId: input.orgId,
    projectId: input.projectId ?? null,
    actorId: input.actor?.userId ?? null,
    actorKind: input.actor?.kind ?? 'system',
    action: input.action,
    data: input.data ?? {},
    traceId: input.traceId ?? null,
    createdAt: nowIso(),
  };
}

/** The insert statement for one entry, to run alone or inside a `db.batch` with the change it records. */
export const activityInsert = (db: ControlDb, input: ActivityInput) => db.insert(activity).values(activityRow(input));

/**
 * The insert for one entry that is written only when `condition` holds when it runs: for a guarded
 * change in the same `db.batch`, so the entry exists exactly when the change happened.
 */
export function activityInsertWhen(db: ControlDb, input: ActivityInput, condition: SQL) {
  const row: Record<string, unknown> = { ...activityRow(input) };
  // INSERT ... SELECT lists every column in the table's order.
  const values = Object.keys(getTableColumns(activity)).map((key) => sql`${key === 'data' ? JSON.stringify(row.data) : row[key]}`);
  return db.insert(activity).select(sql`SELECT ${sql.join(values, sql`, `)} WHERE ${condition}`);
}

export async function recordActivity(db: ControlDb, input: ActivityInput): Promise<void> {
  await activityInsert(db, input);
}

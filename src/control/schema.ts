// The control plane in D1: everything queried across projects. Documented in docs/storage.md.
import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

const createdAt = () => text('created_at').notNull();

export const organizations = sqliteTable('organizations', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  slug: text('slug').notNull(),
  retentionDays: integer('retention_days').notNull().default(90),
  createdAt: createdAt(),
  deletedAt: text('deleted_at'),
}, (t) => [uniqueIndex('organizations_slug').on(t.slug)]);

export const users = sqliteTable('users', {
  id: text('id').primaryKey(),
  email: text('email').notNull(),
  name: text('name').notNull(),
  timezone: text('timezone'),
  lastContext: text('last_context', { mode: 'json' }).$type<{ orgId: string; projectId: string }>(),
  createdAt: createdAt(),
}, (t) => [uniqueIndex('users_email').on(t.email)]);

/** One row per person per organization; `removedAt` marks a former member, whose teams are kept in `formerTeamIds`. */
export const orgMembers = sqliteTable('org_members', {
  orgId: text('org_id').notNull(),
  userId: text('user_id').notNull(),
  joinedAt: text('joined_at').notNull(),
  removedAt: text('removed_at'),
  formerTeamIds: text('former_team_ids', { mode: 'json' }).$type<string[]>(),
}, (t) => [primaryKey({ columns: [t.orgId, t.userId] }), index('org_members_user').on(t.userId)]);

/** Built-in roles have `orgId` null and fixed ids (seeded by the first migration). */
export const roles = sqliteTable('roles', {
  id: text('id').primaryKey(),
  orgId: text('org_id'),
  name: text('name').notNull(),
  systemRole: integer('system_role', { mode: 'boolean' }).notNull().default(false),
  permissions: text('permissions', { mode: 'json' }).notNull().$type<string[]>(),
  position: integer('position').notNull().default(100),
  createdAt: createdAt(),
}, (t) => [index('roles_org').on(t.orgId)]);

export const teams = sqliteTable('teams', {
  id: text('id').primaryKey(),
  orgId: text('org_id').notNull(),
  name: text('name').notNull(),
  builtIn: integer('built_in', { mode: 'boolean' }).notNull().default(false),
  allProjects: integer('all_projects', { mode: 'boolean' }).notNull().default(false),
  createdAt: createdAt(),
}, (t) => [uniqueIndex('teams_org_name').on(t.orgId, t.name)]);

export const teamRoles = sqliteTable('team_roles', {
  teamId: text('team_id').notNull(),
  roleId: text('role_id').notNull(),
}, (t) => [primaryKey({ columns: [t.teamId, t.roleId] }), index('team_roles_role').on(t.roleId)]);

export const teamProjects = sqliteTable('team_projects', {
  teamId: text('team_id').notNull(),
  projectId: text('project_id').notNull(),
}, (t) => [primaryKey({ columns: [t.teamId, t.projectId] }), index('team_projects_project').on(t.projectId)]);

export const teamMembers = sqliteTable('team_members', {
  teamId: text('team_id').notNull(),
  userId: text('user_id').notNull(),
  addedAt: text('added_at').notNull(),
}, (t) => [primaryKey({ columns: [t.teamId, t.userId] }), index('team_members_user').on(t.userId)]);

export const projects = sqliteTable('projects', {
  id: text('id').primaryKey(),
  orgId: text('org_id').notNull(),
  name: text('name').notNull(),
  demoProject: integer('demo_project', { mode: 'boolean' }).notNull().default(false),
  featureFlags: text('feature_flags', { mode: 'json' }).notNull().$type<string[]>().default(sql`'[]'`),
  createdAt: createdAt(),
  deletedAt: text('deleted_at'),
}, (t) => [
  index('projects_org').on(t.orgId),
  // Names are unique among the organization's active projects; a deleted project's name is free again.
  uniqueIndex('projects_org_name_active').on(t.orgId, t.name).where(sql`deleted_at is null`),
]);

/**
 * Every credential by its `jti`. Kinds: `sign_in` (a person's sign-in, scoped to one organization),
 * `session` (a dashboard session token issued under a sign-in, `parentJti`), `api_token`, `upload_pass`,
 * `connected_app` (an AI assistant's approval, reaching every project its person reaches in `orgId`;
 * `scopes` are what was ticked, `clientId` its OAuth client; tokens and passes it creates name it as
 * `parentJti`, so canceling it ends them too).
 * Secrets are never stored: a JWT is recomputable only with the signing key, and an upload pass's
 * challenge is kept as its SHA-256.
 */
export const credentials = sqliteTable('credentials', {
  jti: text('jti').primaryKey(),
  kind: text('kind', { enum: ['sign_in', 'session', 'api_token', 'upload_pass', 'connected_app'] }).notNull(),
  orgId: text('org_id').notNull(),
  projectId: text('project_id'),
  userId: text('user_id').notNull(),
  parentJti: text('parent_jti'),
  name: text('name'),
  permissions: text('permissions', { mode: 'json' }).$type<string[]>(),
  challengeHash: text('challenge_hash'),
  scopes: text('scopes', { mode: 'json' }).$type<string[]>(),
  clientId: text('client_id'),
  createdAt: createdAt(),
  expiresAt: text('expires_at').notNull(),
  revokedAt: text('revoked_at'),
  lastUsedAt: text('last_used_at'),
}, (t) => [
  index('credentials_project').on(t.projectId, t.createdAt),
  index('credentials_parent').on(t.parentJti),
  index('credentials_user_org').on(t.userId, t.orgId),
]);

/** One-time sign-in links: the emailed JWT names this row's `jti`; `usedAt` makes it single-use. */
export const signInLinks = sqliteTable('sign_in_links', {
  jti: text('jti').primaryKey(),
  email: text('email').notNull(),
  createdAt: createdAt(),
  expiresAt: text('expires_at').notNull(),
  usedAt: text('used_at'),
}, (t) => [index('sign_in_links_email').on(t.email, t.createdAt)]);

/**
 * One dynamic OAuth client registration (`/oauth/register`) per row, by the client's address (a keyed
 * hash of it, never the address): what bounds registrations per address per hour. Deleted after a day.
 */
export const oauthRegistrations = sqliteTable('oauth_registrations', {
  id: text('id').primaryKey(),
  clientKey: text('client_key').notNull(),
  createdAt: createdAt(),
}, (t) => [index('oauth_registrations_client').on(t.clientKey, t.createdAt)]);

export const activity = sqliteTable('activity', {
  id: text('id').primaryKey(),
  orgId: text('org_id').notNull(),
  projectId: text('project_id'),
  actorId: text('actor_id'),
  actorKind: text('actor_kind').notNull(),
  action: text('action').notNull(),
  data: text('data', { mode: 'json' }).notNull().$type<Record<string, unknown>>(),
  traceId: text('trace_id'),
  createdAt: createdAt(),
}, (t) => [
  index('activity_org_created').on(t.orgId, t.createdAt, t.id),
  index('activity_org_project_created').on(t.orgId, t.projectId, t.createdAt, t.id),
  index('activity_org_action').on(t.orgId, t.action, t.createdAt, t.id),
  index('activity_org_actor').on(t.orgId, t.actorId, t.createdAt, t.id),
]);

/**
 * Erasures still to finish (docs/retention.md): what the retention purge removed from the control
 * plane but whose data lives elsewhere or is large. Worked by the daily cron in bounded slices and
 * deleted when done, so an erasure interrupted halfway continues on the next run.
 * - `project`: the project's R2 objects (`projects/{id}/`), then its Durable Object storage;
 *   `step` `close` (uploads aborted, object closed), `objects`, `storage`.
 * - `organization`: the purged organization's activity entries (`step` `activity`).
 * - `person`: a person who belongs to no organization any more: their ratings' email in every
 *   project of their former organizations (`cursor` = the last project done, by id), then their
 *   email and name in activity entries and in `users` (`step` `projects`, `people`).
 */
export const erasures = sqliteTable('erasures', {
  kind: text('kind', { enum: ['project', 'organization', 'person'] }).notNull(),
  targetId: text('target_id').notNull(),
  /** The project's organization (projects only). */
  orgId: text('org_id'),
  step: text('step').notNull(),
  cursor: text('cursor'),
  /** Objects or rows erased so far. */
  erased: integer('erased').notNull().default(0),
  /** Runs that failed on it; `lastError` says why. */
  failures: integer('failures').notNull().default(0),
  lastError: text('last_error'),
  queuedAt: text('queued_at').notNull(),
  updatedAt: text('updated_at').notNull(),
}, (t) => [primaryKey({ columns: [t.kind, t.targetId] }), index('erasures_queued').on(t.queuedAt)]);

// People, projects and credentials for tests: members with the built-in roles or a custom role,
// API tokens and upload passes, extra projects, and reads of the activity table. Set-up writes
// through the service's own domain functions into the real D1 (and, being outside the API, bumps
// the organization's access epoch as any such write must); every assertion goes through HTTP.
import { env } from 'cloudflare:workers';
import { issueApiToken, issueUploadPass } from '../src/auth/credentials';
import { ADMIN_ROLE_ID, MEMBER_ROLE_ID, VIEWER_ROLE_ID, type Permission } from '../src/auth/permissions';
import { controlDb } from '../src/control/db';
import { bumpAccessEpoch } from '../src/auth/access-cache';
import { orgMembers, projects, roles, teamMembers, teamRoles, teams } from '../src/control/schema';
import { ensureUser } from '../src/control/tenancy';
import { nowIso } from '../src/lib/ids';
import { newTenant, signIn, uniqueEmail, type Session } from './helpers';

export type Tenant = Awaited<ReturnType<typeof newTenant>>;
export type RoleSpec = 'Admin' | 'Member' | 'Viewer' | { permissions: Permission[] };

const BUILTIN: Record<string, string> = { Admin: ADMIN_ROLE_ID, Member: MEMBER_ROLE_ID, Viewer: VIEWER_ROLE_ID };

/** A person in the tenant's organization on a team (all projects) with the given role; signed in. */
export async function addPerson(tenant: Tenant, role: RoleSpec, label = 'member'): Promise<Session & { token: string }> {
  const db = controlDb(env.DB);
  const user = await ensureUser(db, uniqueEmail(label));
  const now = nowIso();
  let roleId: string;
  if (typeof role === 'string') roleId = BUILTIN[role]!;
  else {
    roleId = crypto.randomUUID();
    await db.insert(roles).values({ id: roleId, orgId: tenant.orgId, name: `Custom ${roleId.slice(0, 8)}`, permissions: role.permissions, createdAt: now });
  }
  const teamId = crypto.randomUUID();
  await db.batch([
    db.insert(orgMembers).values({ orgId: tenant.orgId, userId: user.id, joinedAt: now }),
    db.insert(teams).values({ id: teamId, orgId: tenant.orgId, name: `Team ${teamId.slice(0, 8)}`, allProjects: true, createdAt: now }),
    db.insert(teamRoles).values({ teamId, roleId }),
    db.insert(teamMembers).values({ teamId, userId: user.id, addedAt: now }),
  ]);
  await bumpAccessEpoch(env, tenant.orgId);
  const session = await signIn(user.email);
  return { ...session, token: session.jwt };
}

let counter = 0;
/** A name no other test uses. */
export const uniqueName = (label: string) => `${label} ${Date.now().toString(36)}-${++counter}`;

/** Another active project of the tenant's organization, written straight to D1 (no activity entry). */
export async function addProject(tenant: { orgId: string }, name = uniqueName('Project')): Promise<string> {
  const id = crypto.randomUUID();
  await controlDb(env.DB).insert(projects).values({ id, orgId: tenant.orgId, name, featureFlags: [], createdAt: nowIso() });
  await bumpAccessEpoch(env, tenant.orgId);
  return id;
}

/** A person who belongs to the organization but to none of its teams. */
export async function addOrgMember(tenant: { orgId: string }, label = 'joiner') {
  const db = controlDb(env.DB);
  const user = await ensureUser(db, uniqueEmail(label));
  await db.insert(orgMembers).values({ orgId: tenant.orgId, userId: user.id, joinedAt: nowIso() });
  await bumpAccessEpoch(env, tenant.orgId);
  return user;
}

/** The organization's activity rows of one action, oldest first, with `data` parsed. */
export async function activityRows(orgId: string, action: string): Promise<Record<string, any>[]> {
  const { results } = await env.DB.prepare('SELECT * FROM activity WHERE org_id = ? AND action = ? ORDER BY id').bind(orgId, action).all<Record<string, unknown>>();
  return results.map((row) => ({ ...row, data: JSON.parse(row.data as string) }));
}

/** The newest activity row of one action, or null. */
export async function lastActivity(orgId: string, action: string): Promise<Record<string, any> | null> {
  return (await activityRows(orgId, action)).at(-1) ?? null;
}

/** An API token of the tenant's project holding `permissions`, created by the tenant's owner. */
export async function apiToken(tenant: Tenant, permissions: Permission[]): Promise<string> {
  const issued = await issueApiToken(controlDb(env.DB), env, {
    orgId: tenant.orgId, projectId: tenant.projectId, actor: { userId: tenant.user.id, kind: 'session' }, durationDays: 14, permissions,
  });
  return issued.token;
}

/** An upload pass of the tenant's project. */
export async function uploadPass(tenant: Tenant): Promise<string> {
  const issued = await issueUploadPass(controlDb(env.DB), env, {
    orgId: tenant.orgId, projectId: tenant.projectId, actor: { userId: tenant.user.id, kind: 'session' }, durationDays: 14,
  });
  return issued.token;
}

export type MatrixRole = 'admin' | 'member' | 'viewer' | 'custom' | 'apiToken' | 'uploadPass';

/**
 * The six kinds of caller of the permission matrix, in one organization: the owner (Admin), a
 * Member, a Viewer, a custom role holding `customPermissions`, an API token holding every project
 * and org permission of the Member role, and an upload pass.
 */
export async function roleMatrix(customPermissions: Permission[] = ['project:view', 'org:view']) {
  const tenant = await newTenant('matrix');
  const [member, viewer, custom] = [
    await addPerson(tenant, 'Member', 'member'),
    await addPerson(tenant, 'Viewer', 'viewer'),
    await addPerson(tenant, { permissions: customPermissions }, 'custom'),
  ];
  const tokens: Record<MatrixRole, string> = {
    admin: tenant.token,
    member: member.token,
    viewer: viewer.token,
    custom: custom.token,
    apiToken: await apiToken(tenant, ['project:view', 'project:edit', 'project:portfolio:view', 'org:view']),
    uploadPass: await uploadPass(tenant),
  };
  return { tenant, member, viewer, custom, tokens };
}

// People and credentials for permission tests: members with the built-in roles or a custom role,
// API tokens and upload passes. Set-up writes through the service's own domain functions into the
// real D1; every assertion then goes through the HTTP API.
import { env } from 'cloudflare:workers';
import { issueApiToken, issueUploadPass } from '../src/auth/credentials';
import { ADMIN_ROLE_ID, MEMBER_ROLE_ID, VIEWER_ROLE_ID, type Permission } from '../src/auth/permissions';
import { controlDb } from '../src/control/db';
import { orgMembers, roles, teamMembers, teamRoles, teams } from '../src/control/schema';
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
  const session = await signIn(user.email);
  return { ...session, token: session.jwt };
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

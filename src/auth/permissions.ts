// Permission strings and the built-in roles (ARCHITECTURE section 3). Plain data, shared by
// middleware, handlers, the OpenAPI document and the built-in roles migration.

export const PROJECT_PERMISSIONS = [
  'project:view',
  'project:edit',
  'project:admin',
  'project:portfolio:view',
  'project:portfolio:rate',
] as const;

export const ORG_PERMISSIONS = [
  'org:view',
  'org:manage_org',
  'org:manage_teams',
  'org:invite_user',
  'org:remove_user',
  'org:create_project',
  'org:delete_project',
  'org:view_activity_log',
] as const;

export const ALL_PERMISSIONS = [...PROJECT_PERMISSIONS, ...ORG_PERMISSIONS] as const;
export type Permission = (typeof ALL_PERMISSIONS)[number];
export type ProjectPermission = (typeof PROJECT_PERMISSIONS)[number];
export type OrgPermission = (typeof ORG_PERMISSIONS)[number];

export const PERMISSION_DESCRIPTIONS: Record<Permission, string> = {
  'project:view': 'Read the project: jobs, bundles, reports, data health.',
  'project:edit': 'Change project data: surveys, portfolios, credentials, renders.',
  'project:admin': 'Administer the project: rename it, restore surveys, stale projections.',
  'project:portfolio:view': 'Read portfolios, subjects, scores and history.',
  'project:portfolio:rate': 'Rate the criticality of subjects.',
  'org:view': 'Read the organization, its members and projects.',
  'org:manage_org': 'Rename the organization, change retention, delete it.',
  'org:manage_teams': 'Create and change teams, their roles, projects and members; look up others\' permissions.',
  'org:invite_user': 'Invite people into the organization.',
  'org:remove_user': 'Remove people from the organization.',
  'org:create_project': 'Create projects.',
  'org:delete_project': 'Delete and restore projects.',
  'org:view_activity_log': 'Read the activity log.',
};

export function isPermission(value: string): value is Permission {
  return (ALL_PERMISSIONS as readonly string[]).includes(value);
}

export function isOrgPermission(value: string): value is OrgPermission {
  return (ORG_PERMISSIONS as readonly string[]).includes(value);
}

export const BUILTIN_ROLES = [
  { id: '00000000-0000-4000-8000-000000000001', name: 'Admin', permissions: [...ALL_PERMISSIONS] },
  {
    id: '00000000-0000-4000-8000-000000000002',
    name: 'Member',
    permissions: ['project:view', 'project:edit', 'project:portfolio:view', 'project:portfolio:rate', 'org:view', 'org:create_project'],
  },
  { id: '00000000-0000-4000-8000-000000000003', name: 'Viewer', permissions: ['project:view', 'project:portfolio:view', 'org:view'] },
] as const satisfies readonly { id: string; name: string; permissions: readonly Permission[] }[];

export const ADMIN_ROLE_ID = BUILTIN_ROLES[0].id;
export const MEMBER_ROLE_ID = BUILTIN_ROLES[1].id;
export const VIEWER_ROLE_ID = BUILTIN_ROLES[2].id;

// What a person lets an AI assistant do (spec part 5 rule 9): four OAuth scopes, ticked on the approval
// page. An assistant acts with the person's own permissions intersected with what its scopes allow.
import type { Permission } from './permissions';

export const SCOPES = ['docs:read', 'project:read', 'project:write', 'credentials:create'] as const;
export type Scope = (typeof SCOPES)[number];

export const isScope = (value: string): value is Scope => (SCOPES as readonly string[]).includes(value);

export interface ScopeInfo {
  label: string;
  description: string;
  /** Ticked when the approval page opens: reading is allowed unless unticked, changes only when ticked. */
  byDefault: boolean;
  /** The permissions this scope lets through (the person must still hold them). */
  permissions: readonly Permission[];
}

export const SCOPE_INFO: Record<Scope, ScopeInfo> = {
  'docs:read': {
    label: 'Read the API and client documentation',
    description: 'The interface specification, the OpenAPI document, the CLI guide and how scores and findings are computed.',
    byDefault: true,
    permissions: [],
  },
  'project:read': {
    label: 'Read project data',
    description: 'Projects, surveys and jobs, reports, portfolios and scores, subjects, data health and the activity log you can see.',
    byDefault: true,
    permissions: ['project:view', 'project:portfolio:view', 'org:view', 'org:view_activity_log'],
  },
  'project:write': {
    label: 'Change and delete project data',
    description: 'Rate how critical subjects are, decide what findings mean (triage), create, change and delete portfolios and their members, render and regenerate reports, regenerate, delete and restore surveys, and list documents whose inputs moved on.',
    byDefault: false,
    permissions: ['project:edit', 'project:admin', 'project:portfolio:rate'],
  },
  'credentials:create': {
    label: 'Create API tokens and upload passes',
    description: 'API tokens lasting one hour and upload passes lasting 48 hours, with at most your own permissions.',
    byDefault: false,
    permissions: [],
  },
};

/** How long what an assistant creates lasts. */
export const ASSISTANT_TOKEN_HOURS = 1;
export const ASSISTANT_PASS_HOURS = 48;

/** The permissions the scopes let through, before the person's own are applied. */
export function scopePermissions(scopes: readonly string[]): Set<Permission> {
  const allowed = new Set<Permission>();
  for (const scope of scopes) if (isScope(scope)) for (const permission of SCOPE_INFO[scope].permissions) allowed.add(permission);
  return allowed;
}

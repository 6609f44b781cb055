// The navigation: one link per area of a project, then the organization's. A new area is one route file
// in pages/ and one line here (its pages mark themselves current by `area`).
export interface Area {
  /** Where it is: under /projects/{projectId} for a project area, from the root for an organization one. */
  path: string;
  label: string;
  scope: 'project' | 'org';
  /** Shown only to people holding it (the API refuses the rest anyway). */
  permission?: string;
}

export const AREAS: readonly Area[] = [
  { path: '', label: 'Overview', scope: 'project' },
  { path: '/surveys', label: 'Surveys', scope: 'project' },
  { path: '/reports', label: 'Reports', scope: 'project' },
  { path: '/portfolios', label: 'Portfolios', scope: 'project', permission: 'project:portfolio:view' },
  { path: '/subjects', label: 'Subjects', scope: 'project' },
  { path: '/triage', label: 'Triage', scope: 'project' },
  { path: '/data-health', label: 'Data health', scope: 'project' },
  { path: '/credentials', label: 'Credentials', scope: 'project' },
  { path: '/projects', label: 'Projects', scope: 'org' },
  { path: '/people', label: 'People', scope: 'org' },
  { path: '/activity', label: 'Activity', scope: 'org', permission: 'org:view_activity_log' },
  { path: '/settings', label: 'Settings', scope: 'org' },
];

export const areaHref = (area: Area, projectId: string | null): string | null =>
  area.scope === 'org' ? area.path : projectId ? `/projects/${projectId}${area.path}` : null;

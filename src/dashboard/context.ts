// What a dashboard page knows while it answers: the caller's session (the cookie's, or the one switched
// to for the page's project), the page's CSP nonce, the frame every page shows (who, which organization
// and project, what they may do, how they want times and colours), and how many API calls it made.
import type { Context } from 'hono';
import type { AppEnv } from '../lib/context';

/** The Worker's entry, given by src/index.ts (a page's call goes through the same door as any request). */
export type Entry = (request: Request, env: AppEnv['Bindings'], ctx: ExecutionContext) => Promise<Response>;

export type Theme = 'system' | 'light' | 'dark';

export interface Frame {
  user: { id: string; email: string; name: string };
  orgId: string;
  orgName: string;
  /** The projects the person reaches in the organization. */
  projects: { id: string; name: string }[];
  /** The session's project (the page's, on a project page). */
  projectId: string | null;
  orgPermissions: string[];
  /** The person's permissions on the session's project. */
  projectPermissions: string[];
  /** The person's permissions on each project they hold any on (the projects list offers actions by them). */
  projectPermissionsById: Record<string, string[]>;
  timezone: string;
  theme: Theme;
}

export interface DashVariables {
  /** The Worker's entry: pages call the API through it (api.ts). */
  entry: Entry;
  /** The nonce this page's scripts carry (the CSP names it; htmx's hx-csp checks it on every htmx element). */
  nonce: string;
  /** The session token pages act with; set once the person is known to be signed in. */
  session: string;
  frame: Frame;
  /** API calls made for this page (at most 6), and their time, sent as Server-Timing. */
  apiCalls: number;
  apiMs: number;
}

export interface DashEnv {
  Bindings: AppEnv['Bindings'];
  Variables: AppEnv['Variables'] & DashVariables;
}

export type DashContext = Context<DashEnv>;

/** Whether the person holds a permission on the page's project (project ones) or the organization (org ones). */
export const holds = (frame: Frame, permission: string): boolean =>
  permission.startsWith('org:') ? frame.orgPermissions.includes(permission) : frame.projectPermissions.includes(permission);

// Who is signed in, on what: the frame every signed-in page shows, read from the API with the page's
// session (three calls side by side: the profile, the projects reached, the permissions). Times and the
// theme come from the display cookie, so they cost no call. A project page first moves the session to
// the project its address names (reusing the sign-in's session there), so two tabs on two projects both
// work.
import { decodeJwt } from 'jose';
import { api, ApiRefusal, callApi } from './api';
import type { DashContext, Frame } from './context';
import { displayOf, forgetSession, keepReturn, keepSession, sessionOf } from './session-cookie';

interface Profile { id: string; email: string; name: string }
interface MyProjects { org_uuid: string; org_name: string; projects: { uuid: string; name: string }[] }
interface Permissions { orgPermissions: string[]; projectPermissions: Record<string, string[]> }
interface Switched { jwt: string; expiresAt: string }

/** The claims the page needs to know where it is (the API verifies the token on every call). */
const claimsOf = (session: string) => {
  const claims = decodeJwt(session);
  return { userId: String(claims.sub), orgId: String(claims.org), projectId: typeof claims.prj === 'string' ? claims.prj : null };
};

/**
 * The session this page acts with, or null (not signed in: the caller leads to sign-in). On a project
 * page whose project is not the session's, the session is switched and the cookie follows.
 */
export async function pageSession(c: DashContext, projectId?: string): Promise<string | null> {
  const session = sessionOf(c);
  if (!session) return null;
  let claims;
  try {
    claims = claimsOf(session);
  } catch {
    forgetSession(c);
    return null;
  }
  if (!projectId || claims.projectId === projectId) return session;
  const answer = await callApi<Switched>(c as never, c.var.entry, 'POST', `/api/v1/project/${encodeURIComponent(projectId)}/session`, { session });
  c.set('apiCalls', (c.var.apiCalls ?? 0) + 1);
  if (answer.status !== 200) throw new ApiRefusal(answer.status, answer.body as never, answer.headers);
  keepSession(c, answer.body.jwt, answer.body.expiresAt);
  return answer.body.jwt;
}

export async function loadFrame(c: DashContext, session: string): Promise<Frame> {
  c.set('session', session);
  const { userId, projectId } = claimsOf(session);
  const calls = api(c);
  const [user, mine, permissions] = await Promise.all([
    calls.get<Profile>('/api/v1/user'),
    calls.get<MyProjects>('/api/v1/user/project'),
    calls.get<Permissions>(`/api/v1/org/${claimsOf(session).orgId}/user/${userId}/permission`),
  ]);
  const display = displayOf(c);
  return {
    user,
    orgId: mine.org_uuid,
    orgName: mine.org_name,
    projects: mine.projects.map((p) => ({ id: p.uuid, name: p.name })),
    projectId,
    orgPermissions: permissions.orgPermissions,
    projectPermissions: projectId ? permissions.projectPermissions[projectId] ?? [] : [],
    projectPermissionsById: permissions.projectPermissions,
    timezone: display.timezone,
    theme: display.theme,
  };
}

/** Leads to sign-in, coming back to this page afterwards. */
export function toSignIn(c: DashContext): Response {
  if (c.req.method === 'GET') {
    const url = new URL(c.req.url);
    keepReturn(c, url.pathname + url.search);
  }
  return c.redirect('/sign-in', 303);
}

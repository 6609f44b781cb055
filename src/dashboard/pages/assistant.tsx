// Connecting an AI assistant while signed in on the dashboard (issue 21): the MCP sign-in page on the API
// host links here, `/assistant/connect?request=…`. The dashboard's session cookie lives on this host only
// (`__Host-`, SameSite=Strict), so the API host cannot read it: this page asks the person to confirm with
// a POST from this origin (the origin check and the cookie both apply), checks the session with the
// API, and vouches for the waiting authorization with a one-time, two-minute code bound to that request
// (src/mcp/authorize.ts, vouchForAuthorization); the browser carries the code back to the API host,
// where it is worth something only with the authorize cookie of the browser that started the request.
// The session token never leaves the cookie. Opening the link (a GET) changes nothing.
import { Hono } from 'hono';
import { ClientSummary, Document, HiddenInput } from '../../mcp/pages/layout';
import { messagePage } from '../../mcp/pages';
import { pendingClient, vouchForAuthorization } from '../../mcp/authorize';
import { callApi } from '../api';
import type { DashContext, DashEnv } from '../context';
import { dashboardCsp, renderPage, respond } from '../respond';
import { forgetSession, keepReturn, sessionOf } from '../session-cookie';

export const CONNECT_PATH = '/assistant/connect';

interface Profile { id: string; email: string; name: string }

/** The person the cookie's session belongs to, as the API knows it (a revoked or expired session is no one). */
async function signedInPerson(c: DashContext): Promise<Profile | null> {
  const session = sessionOf(c);
  if (!session) return null;
  const answer = await callApi<Profile>(c as never, c.var.entry, 'GET', '/api/v1/user', { session });
  if (answer.status === 401) forgetSession(c);
  return answer.status === 200 ? answer.body : null;
}

const requestOf = (value: unknown) => (typeof value === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(value) ? value : undefined);

const expired = (c: DashContext) => respond(c, messagePage({
  title: 'Start again from your assistant',
  message: 'This connection request is not waiting any more: it expired (after 30 minutes) or was finished. Connect the assistant again.',
  status: 'error',
}), 400);

export const assistantRoutes = new Hono<DashEnv>()
  .get(CONNECT_PATH, async (c) => {
    const request = requestOf(c.req.query('request'));
    const client = await pendingClient(c.env, request);
    if (!request || !client) return expired(c);
    // Sent when both hosts are one site; after a link from another site SameSite=Strict keeps it back,
    // and the confirming POST (from this origin) carries it.
    const person = await signedInPerson(c);
    const label = person ? `Continue as ${person.email}` : 'Continue with your dashboard sign-in';
    const html = renderPage(
      <Document title="Connect an assistant">
        <h1>
          Connect <span class="wrap">{client.clientName}</span> to Posture
        </h1>
        <p class="muted lead">
          {person
            ? <>You are signed in on the dashboard as <strong class="wrap">{person.email}</strong>. Continue to choose what the assistant may do; nothing is allowed before that.</>
            : <>Continue with the sign-in this browser holds on the Posture dashboard, then choose what the assistant may do; nothing is allowed before that.</>}
        </p>
        <ClientSummary {...client} />
        <form method="post" action={CONNECT_PATH}>
          <HiddenInput name="request" value={request} />
          <button type="submit" class="btn btn-primary btn-block">{label}</button>
        </form>
        <p class="after">If you did not start connecting an assistant, close this page.</p>
      </Document>,
    );
    // The confirming POST is answered by a redirect to the API host's authorize pages: form-action allows it.
    const csp = dashboardCsp(c.var.nonce).replace("form-action 'self'", `form-action 'self' ${new URL(c.env.API_URL).origin}`);
    return respond(c, html, 200, { 'Content-Security-Policy': csp });
  })
  .post(CONNECT_PATH, async (c) => {
    const form = await c.req.parseBody().catch(() => ({} as Record<string, unknown>));
    const request = requestOf(form.request);
    if (!request || !(await pendingClient(c.env, request))) return expired(c);
    const person = await signedInPerson(c);
    if (!person) {
      // Not signed in here after all: sign in on the dashboard, then come back to this step.
      keepReturn(c, `${CONNECT_PATH}?${new URLSearchParams({ request })}`);
      return c.redirect('/sign-in', 303);
    }
    const next = await vouchForAuthorization(c.env, request, person);
    if (!next) return expired(c);
    return c.redirect(next, 303);
  });

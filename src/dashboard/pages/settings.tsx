// The organization's settings (issue 21, page 12; spec 4.5): its name and retention (how long deleted
// projects stay restorable), and deleting it behind a typed confirmation (the person types its name; a
// plain form, so it works without script). Changing needs `org:manage_org`; the API decides, the page
// only leaves the forms out for those without it.
import { Hono } from 'hono';
import { api, messageOf, ok } from '../api';
import { Field, Notice, PageTitle } from '../components/common';
import { holds, type DashContext, type DashEnv } from '../context';
import { messageResponse, shellPage, type PageStatus } from '../respond';
import { forgetSession } from '../session-cookie';

const AREA = 'Settings';
const MANAGE = 'org:manage_org';

interface Organization { id: string; name: string; slug: string; retentionDays: number }

interface SettingsInput {
  name?: string;
  retention?: string;
  errors?: { name?: string; retention?: string; confirm?: string };
  confirm?: string;
  status?: PageStatus;
}

async function formOf(c: DashContext): Promise<Record<string, string>> {
  const body = await c.req.parseBody().catch(() => ({}));
  return Object.fromEntries(Object.entries(body).filter((e): e is [string, string] => typeof e[1] === 'string').map(([k, v]) => [k, v.trim()]));
}

const orgPath = (c: DashContext) => `/api/v1/org/${c.var.frame.orgId}`;

function settingsPage(c: DashContext, org: Organization, input: SettingsInput = {}) {
  const { frame } = c.var;
  const canManage = holds(frame, MANAGE);
  const errors = input.errors ?? {};
  return shellPage(c, { title: AREA, area: AREA, status: input.status }, (
    <>
      <PageTitle title="Organization settings">
        <p class="lead">Settings of <strong class="wrap">{org.name}</strong>.</p>
      </PageTitle>
      {c.req.query('saved') === '1' ? <Notice kind="info" live>Saved.</Notice> : null}
      {canManage ? (
        <form method="post" action="/settings" class="panel" aria-labelledby="general-title">
          <h2 id="general-title">Name and retention</h2>
          <Field name="name" id="org-name" label="Organization name" value={input.name ?? org.name} required maxlength={255} error={errors.name} />
          <Field
            name="retentionDays" id="org-retention" label="Retention in days" type="number" min={1} max={365} inputmode="numeric" required
            value={input.retention ?? String(org.retentionDays)} error={errors.retention}
            hint="How long a deleted project (or this organization, once deleted) stays restorable before it is removed for good: 1 to 365 days."
          />
          <button type="submit" class="btn btn-primary">Save</button>
        </form>
      ) : (
        <section class="panel" aria-labelledby="general-title">
          <h2 id="general-title">Name and retention</h2>
          <p>Name: <strong class="wrap">{org.name}</strong></p>
          <p>Retention: <strong>{org.retentionDays} days</strong> (how long a deleted project stays restorable)</p>
          <p class="muted">Changing these needs the permission {MANAGE}.</p>
        </section>
      )}
      {canManage ? (
        <form method="post" action="/settings/delete" class="panel" aria-labelledby="delete-title">
          <h2 id="delete-title">Delete this organization</h2>
          <Notice kind="warn">
            Every project and every membership goes at once, and every credential of the organization stops working.
            No one can restore it; it is removed for good after {org.retentionDays} days.
          </Notice>
          <Field name="confirm" id="delete-confirm" label={`Type the organization's name, ${org.name}, to confirm`} value={input.confirm ?? ''} required error={errors.confirm} />
          <button type="submit" class="btn btn-danger">Delete the organization</button>
        </form>
      ) : null}
    </>
  ));
}

/** Which field an API 400 is about ("Invalid request body: retentionDays: …"). */
const errorField = (message: string): 'name' | 'retention' => (/retention/i.test(message) ? 'retention' : 'name');

export const settingsRoutes = new Hono<DashEnv>()
  .get('/settings', async (c) => settingsPage(c, await api(c).get<Organization>(orgPath(c))))
  .post('/settings', async (c) => {
    const { name = '', retentionDays = '' } = await formOf(c);
    const calls = api(c);
    const change: { name: string; retentionDays?: number } = { name };
    if (retentionDays !== '') change.retentionDays = Number(retentionDays);
    const answer = await calls.send<Organization>('PUT', orgPath(c), change);
    if (answer.status === 400) {
      const message = messageOf(answer);
      const org = await calls.get<Organization>(orgPath(c));
      return settingsPage(c, org, { name, retention: retentionDays, errors: { [errorField(message)]: message }, status: 400 });
    }
    ok(answer);
    return c.redirect('/settings?saved=1', 303);
  })
  .post('/settings/delete', async (c) => {
    const { confirm = '' } = await formOf(c);
    const calls = api(c);
    const org = await calls.get<Organization>(orgPath(c));
    if (confirm !== org.name.trim()) {
      const error = confirm ? 'That is not the organization\'s name: nothing was deleted.' : 'Type the organization\'s name to delete it.';
      return settingsPage(c, org, { confirm, errors: { confirm: error }, status: 400 });
    }
    await calls.must('DELETE', orgPath(c));
    // Its sessions ended with it: the page stands on its own, leading to sign-in.
    forgetSession(c);
    c.set('frame', undefined as never);
    return messageResponse(c, {
      title: 'Organization deleted', kind: 'info', status: 200, retryHref: '/sign-in',
      message: `${org.name} was deleted with its projects and memberships. Sign in again to work in another organization.`,
    });
  });

// The person's own pages: where `/` leads, switching project and organization, the profile (name and
// the timezone every time is shown in) and the theme.
import { Hono } from 'hono';
import { api, messageOf, ok } from '../api';
import { Field, Notice, PageTitle, Table, Tag } from '../components/common';
import type { DashContext, DashEnv } from '../context';
import { shellPage } from '../respond';
import { isTheme, keepDisplay, keepSession, safeReturn } from '../session-cookie';

interface Organizations { organizations: { id: string; name: string; current: boolean }[] }
interface Switched { jwt: string; expiresAt: string; projectId: string | null }
interface Preferences { timezone?: string }

const form = async (c: DashContext): Promise<Record<string, string>> => {
  const body = await c.req.parseBody().catch(() => ({}));
  return Object.fromEntries(Object.entries(body).filter((e): e is [string, string] => typeof e[1] === 'string').map(([k, v]) => [k, v.trim()]));
};

/** Back to the page the form was on (its own address only), else `fallback`. */
const back = (c: DashContext, fallback: string) => {
  let url: URL | null = null;
  try {
    url = new URL(c.req.header('referer') ?? '', c.req.url);
  } catch {
    url = null;
  }
  return url && url.origin === new URL(c.req.url).origin ? safeReturn(url.pathname + url.search) ?? fallback : fallback;
};

function profilePage(c: DashContext, input: { name: string; timezone: string; errors?: { name?: string; timezone?: string }; saved?: boolean }) {
  const { frame } = c.var;
  return shellPage(c, { title: 'Profile', status: input.errors ? 400 : 200 }, (
    <>
      <PageTitle title="Your profile" />
      {input.saved ? <Notice kind="info" live>Saved.</Notice> : null}
      <form method="post" action="/profile" class="panel">
        <p>Email: <strong class="wrap">{frame.user.email}</strong> (it cannot be changed)</p>
        <Field name="name" label="Name" value={input.name} required maxlength={255} autocomplete="name" error={input.errors?.name} />
        <Field name="timezone" label="Timezone" value={input.timezone} hint="An IANA zone name, like Europe/Berlin or America/New_York. Every time is shown in it." error={input.errors?.timezone} />
        <button type="submit" class="btn btn-primary">Save</button>
      </form>
    </>
  ));
}

export const accountRoutes = new Hono<DashEnv>()
  .get('/', (c) => c.redirect(c.var.frame.projectId ? `/projects/${c.var.frame.projectId}` : '/projects', 303))
  .get('/switch/project', (c) => {
    const project = c.req.query('project') ?? '';
    return c.redirect(/^[0-9a-fA-F-]{36}$/.test(project) ? `/projects/${project.toLowerCase()}` : '/projects', 303);
  })
  .get('/organizations', async (c) => {
    const { organizations } = await api(c).get<Organizations>('/api/v1/user/organization');
    return shellPage(c, { title: 'Organizations' }, (
      <>
        <PageTitle title="Your organizations" />
        <Table
          caption="Organizations you belong to"
          rows={organizations}
          columns={[
            { label: 'Organization', cell: (o) => <span class="wrap">{o.name}</span> },
            {
              label: 'Status',
              cell: (o) => o.current ? <Tag value="current" /> : (
                <form method="post" action="/organizations/switch" class="inline">
                  <input type="hidden" name="orgId" value={o.id} />
                  <button type="submit" class="btn btn-secondary btn-small">Switch to {o.name}</button>
                </form>
              ),
            },
          ]}
        />
      </>
    ));
  })
  .post('/organizations/switch', async (c) => {
    const { orgId = '' } = await form(c);
    const switched = await api(c).must<Switched>('POST', `/api/v1/org/${encodeURIComponent(orgId)}/session`);
    keepSession(c, switched.jwt, switched.expiresAt);
    return c.redirect(switched.projectId ? `/projects/${switched.projectId}` : '/projects', 303);
  })
  .get('/profile', (c) => profilePage(c, { name: c.var.frame.user.name, timezone: c.var.frame.timezone, saved: c.req.query('saved') === '1' }))
  .post('/profile', async (c) => {
    const { name = '', timezone = '' } = await form(c);
    const calls = api(c);
    const errors: { name?: string; timezone?: string } = {};
    const renamed = await calls.send('PUT', '/api/v1/user', { name });
    if (renamed.status === 400) errors.name = name ? messageOf(renamed) : 'Enter your name.';
    else ok(renamed);
    const zoned = await calls.send<Preferences>('PATCH', '/api/v1/user/preference', { timezone: timezone || null });
    if (zoned.status === 400) errors.timezone = 'Enter an IANA zone name, like Europe/Berlin.';
    else keepDisplay(c, { timezone: ok(zoned).timezone ?? 'UTC' });
    if (errors.name || errors.timezone) return profilePage(c, { name, timezone, errors });
    return c.redirect('/profile?saved=1', 303);
  })
  .post('/preferences/theme', async (c) => {
    const { theme = '' } = await form(c);
    if (isTheme(theme)) keepDisplay(c, { theme });
    return c.redirect(back(c, '/'), 303);
  });

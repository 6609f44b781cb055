// The project's Credentials area (issue 21, page 8; spec 4.11): API tokens, upload passes, sign-ins and
// connected apps, canceled and expired ones still listed; creating a token (permissions offered only up
// to the person's own) or a pass answers the page with the secret this once: it is never put in a
// cookie or an address, and the list never holds it. Everything here needs `project:edit` (the API's).
import { Hono } from 'hono';
import { decodeJwt } from 'jose';
import { ALL_PERMISSIONS, type Permission } from '../../../auth/permissions';
import { api, messageOf, ok } from '../../api';
import { Notice, PageTitle, Pager } from '../../components/common';
import { holds, type DashContext, type DashEnv } from '../../context';
import { shellPage, type PageStatus } from '../../respond';
import { forgetSession } from '../../session-cookie';
import { credentialRows, fieldOfError, type Credential } from './rows';
import { CreatedSecret, CredentialLists, PassCreateForm, TokenCreateForm, type Created, type PassForm, type TokenForm } from './views';

const AREA = 'Credentials';
const EDIT = 'project:edit';

const base = (c: DashContext) => `/projects/${c.var.frame.projectId}/credentials`;
const apiBase = (c: DashContext) => `/api/v1/project/${c.var.frame.projectId}/credential`;

/** The permissions a token may be given: those the person holds here (project ones) and in the organization. */
const offered = (c: DashContext): Permission[] => ALL_PERMISSIONS.filter((p) => holds(c.var.frame, p));

const signInOf = (c: DashContext): string | null => {
  try {
    const sid = decodeJwt(c.var.session).sid;
    return typeof sid === 'string' ? sid : null;
  } catch {
    return null;
  }
};

async function formOf(c: DashContext) {
  const body = await c.req.parseBody({ all: true }).catch(() => ({}) as Record<string, unknown>);
  const one = (name: string) => (typeof body[name] === 'string' ? (body[name] as string).trim() : '');
  const many = (name: string) => ([] as unknown[]).concat(body[name] ?? []).filter((v): v is string => typeof v === 'string');
  return { one, many };
}

/** `duration_days` as the API takes it: left out when empty, a number otherwise (the API judges it). */
const durationOf = (value: string): number | undefined => (value === '' ? undefined : Number(value));

interface PageInput {
  token?: TokenForm;
  pass?: PassForm;
  created?: Created;
  status?: PageStatus;
}

async function credentialsPage(c: DashContext, input: PageInput = {}) {
  const { frame } = c.var;
  if (!holds(frame, EDIT)) {
    return shellPage(c, { title: AREA, area: AREA }, (
      <>
        <PageTitle title="Credentials" />
        <Notice kind="info">Seeing and creating this project's API tokens, upload passes and sign-ins needs the permission {EDIT}, which none of your roles grants here. An administrator can give it to you.</Notice>
      </>
    ));
  }
  const list = await api(c).get<Credential[]>(apiBase(c));
  const page = Number(c.req.query('page') ?? 1) || 1;
  const rows = credentialRows(list, { page, signInJti: signInOf(c), now: Date.now() });
  const href = (n: number) => `${base(c)}?page=${n}`;
  return shellPage(c, { title: AREA, area: AREA, status: input.status }, (
    <>
      <PageTitle title="Credentials">
        <p class="lead">Who and what can act in this project: API tokens, upload passes for the command-line client, people's sign-ins and connected AI assistants. Canceled and expired ones stay listed.</p>
      </PageTitle>
      {c.req.query('canceled') === '1' ? <Notice kind="info" live>Canceled: it stopped working at once.</Notice> : null}
      {input.created ? <CreatedSecret created={input.created} timezone={frame.timezone} /> : null}
      <CredentialLists rows={rows} timezone={frame.timezone} canCancel cancelAction={(jti) => `${base(c)}/${jti}/cancel`} />
      {rows.pages > 1 ? (
        <Pager
          label="Pages of credentials" shown={`Page ${rows.page} of ${rows.pages} (${rows.total} credentials)`}
          previous={rows.page > 1 ? href(rows.page - 1) : null} next={rows.page < rows.pages ? href(rows.page + 1) : null}
        />
      ) : null}
      <div class="grid">
        <TokenCreateForm action={`${base(c)}/api-token`} offered={offered(c)} form={input.token ?? { name: '', permissions: [], duration: '' }} />
        <PassCreateForm action={`${base(c)}/upload-pass`} form={input.pass ?? { name: '', duration: '' }} />
      </div>
    </>
  ));
}

interface Issued extends Credential {
  bearer_token?: string;
  jwt?: string;
}

export const credentialsRoutes = new Hono<DashEnv>()
  .get('/projects/:projectId/credentials', (c) => credentialsPage(c))
  .post('/projects/:projectId/credentials/api-token', async (c) => {
    const { one, many } = await formOf(c);
    const form: TokenForm = { name: one('name'), permissions: many('permissions'), duration: one('duration_days') };
    if (!form.permissions.length && holds(c.var.frame, EDIT)) {
      return credentialsPage(c, { token: { ...form, errors: { permissions: 'Tick at least one permission.' } }, status: 400 });
    }
    const answer = await api(c).send<Issued>('POST', `${apiBase(c)}/api-token`, {
      permissions: form.permissions, name: form.name || undefined, duration_days: durationOf(form.duration),
    });
    if (answer.status === 400) {
      const message = messageOf(answer);
      return credentialsPage(c, { token: { ...form, errors: { [fieldOfError(message)]: message } }, status: 400 });
    }
    const issued = ok(answer);
    return credentialsPage(c, {
      created: { kind: 'api_token', name: issued.name, secret: issued.bearer_token!, permissions: issued.permissions ?? [], expiresAt: issued.expiresAt },
    });
  })
  .post('/projects/:projectId/credentials/upload-pass', async (c) => {
    const { one } = await formOf(c);
    const form: PassForm = { name: one('name'), duration: one('duration_days') };
    const answer = await api(c).send<Issued>('POST', `${apiBase(c)}/spice-pass`, { name: form.name || undefined, duration_days: durationOf(form.duration) });
    if (answer.status === 400) {
      const message = messageOf(answer);
      return credentialsPage(c, { pass: { ...form, errors: { [fieldOfError(message) === 'duration' ? 'duration' : 'name']: message } }, status: 400 });
    }
    const issued = ok(answer);
    return credentialsPage(c, {
      created: { kind: 'upload_pass', name: issued.name, secret: issued.jwt!, expiresAt: issued.expiresAt, apiUrl: c.env.API_URL.replace(/\/$/, ''), projectId: c.var.frame.projectId! },
    });
  })
  .post('/projects/:projectId/credentials/:jti/cancel', async (c) => {
    const jti = c.req.param('jti');
    await api(c).must('DELETE', `${apiBase(c)}/${encodeURIComponent(jti)}`);
    // Canceling one's own sign-in ends this session too.
    if (jti.toLowerCase() === signInOf(c)) {
      forgetSession(c);
      return c.redirect('/sign-in', 303);
    }
    return c.redirect(`${base(c)}?canceled=1`, 303);
  });

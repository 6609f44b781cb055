// The Credentials page's parts: the four lists (API tokens, upload passes, sign-ins, connected apps),
// each row's state as a Tag and a cancel button, the two create forms (an API token's permissions
// offered only up to the person's own), and the secret just created, shown this once with a copy button.
import type { Child } from 'hono/jsx';
import { PERMISSION_DESCRIPTIONS, type Permission } from '../../../auth/permissions';
import { ConfirmAction, Empty, Field, Notice, Table, Tag, Time, type Column } from '../../components/common';
import type { CredentialRow } from './rows';

export interface TokenForm {
  name: string;
  permissions: string[];
  duration: string;
  errors?: { name?: string; permissions?: string; duration?: string };
}

export interface PassForm {
  name: string;
  duration: string;
  errors?: { name?: string; duration?: string };
}

export type Created =
  | { kind: 'api_token'; name: string | null; secret: string; permissions: string[]; expiresAt: string }
  | { kind: 'upload_pass'; name: string | null; secret: string; expiresAt: string; apiUrl: string; projectId: string };

/** A secret in a read-only field with a copy button (ui.js) and a polite "Copied." beside it. */
function Secret(props: { id: string; label: string; value: string; multiline?: boolean }) {
  return (
    <div class="field">
      <label class="label" for={props.id}>{props.label}</label>
      <div class="secret">
        {props.multiline
          ? <textarea class="input value" id={props.id} readonly rows={3} spellcheck={false}>{props.value}</textarea>
          : <input class="input value" id={props.id} readonly value={props.value} spellcheck={false} />}
        <button type="button" class="btn btn-secondary btn-small" data-copy={props.id}>Copy</button>
      </div>
      <p class="hint" id={`${props.id}-copied`} aria-live="polite"></p>
    </div>
  );
}

export function CreatedSecret(props: { created: Created; timezone: string }) {
  const { created } = props;
  if (created.kind === 'api_token') {
    return (
      <section class="panel" aria-labelledby="created-title">
        <h2 id="created-title">API token created{created.name ? `: ${created.name}` : ''}</h2>
        <Notice kind="warn" live>Copy it now: it is shown this once and cannot be shown again.</Notice>
        <Secret id="created-secret" label="The token (send it as Authorization: Bearer …)" value={created.secret} />
        <p>It holds {created.permissions.join(', ')} and expires <Time iso={created.expiresAt} timezone={props.timezone} />.</p>
      </section>
    );
  }
  const command = `export POSTURE_PASS='${created.secret}'\nposture upload ./bom --api ${created.apiUrl} --project ${created.projectId} --wait`;
  return (
    <section class="panel" aria-labelledby="created-title">
      <h2 id="created-title">Upload pass created{created.name ? `: ${created.name}` : ''}</h2>
      <Notice kind="warn" live>Copy it now: it is shown this once and cannot be shown again. Store it as a CI secret named POSTURE_PASS.</Notice>
      <Secret id="created-secret" label="The upload pass" value={created.secret} />
      <Secret id="created-command" label="Upload with the command-line client (docs/cli.md)" value={command} multiline />
      <p>It expires <Time iso={created.expiresAt} timezone={props.timezone} />.</p>
    </section>
  );
}

export function TokenCreateForm(props: { action: string; offered: Permission[]; form: TokenForm }) {
  const { form } = props;
  const errors = form.errors ?? {};
  return (
    <form method="post" action={props.action} class="panel" aria-labelledby="new-token-title">
      <h2 id="new-token-title">New API token</h2>
      <Field name="name" id="token-name" label="Name" value={form.name} maxlength={255} hint="A label for people, like CI pipeline." error={errors.name} />
      <fieldset aria-describedby={errors.permissions ? 'token-permissions-error' : 'token-permissions-hint'}>
        <legend>Permissions it holds</legend>
        <p class="hint" id="token-permissions-hint">Only permissions you hold yourself are offered; the token can never do more than you.</p>
        {errors.permissions ? <p class="field-error" id="token-permissions-error">{errors.permissions}</p> : null}
        <ul class="scopes">
          {props.offered.map((permission, i) => (
            <li class="scope">
              <input type="checkbox" id={`permission-${i}`} name="permissions" value={permission} checked={form.permissions.includes(permission)} aria-describedby={`permission-${i}-desc`} />
              <span class="scope-text">
                <label class="scope-label" for={`permission-${i}`}>{permission}</label>
                <span class="scope-desc" id={`permission-${i}-desc`}>{PERMISSION_DESCRIPTIONS[permission]}</span>
              </span>
            </li>
          ))}
        </ul>
      </fieldset>
      <Field name="duration_days" id="token-duration" label="Days until it expires" type="number" min={1} max={365} inputmode="numeric" value={form.duration} hint="1 to 365; 14 when left empty." error={errors.duration} />
      <button type="submit" class="btn btn-primary">Create API token</button>
    </form>
  );
}

export function PassCreateForm(props: { action: string; form: PassForm }) {
  const errors = props.form.errors ?? {};
  return (
    <form method="post" action={props.action} class="panel" aria-labelledby="new-pass-title">
      <h2 id="new-pass-title">New upload pass</h2>
      <p class="hint">The command-line client uploads bundles to this project with it; it reaches nothing else.</p>
      <Field name="name" id="pass-name" label="Name" value={props.form.name} maxlength={255} hint="A label for people, like build server." error={errors.name} />
      <Field name="duration_days" id="pass-duration" label="Days until it expires" type="number" min={1} max={367} inputmode="numeric" value={props.form.duration} hint="1 to 367; 14 when left empty." error={errors.duration} />
      <button type="submit" class="btn btn-primary">Create upload pass</button>
    </form>
  );
}

const KIND_WORD = { api_token: 'API token', upload_pass: 'upload pass', sign_in: 'sign-in', connected_app: 'connected app' } as const;
/** The action's own words (the dialog's other button is "Cancel", closing it). */
const ACTION_LABEL = { api_token: 'Cancel token', upload_pass: 'Cancel pass', sign_in: 'End sign-in', connected_app: 'Disconnect' } as const;

/** The cancel button of an active credential; the state's Tag for the rest. */
function StateCell(props: { row: CredentialRow; cancelAction: string; canCancel: boolean }) {
  const { row } = props;
  const title = row.kind === 'connected_app' ? `Disconnect ${row.name ?? 'this assistant'}?` : row.own ? 'Cancel your own sign-in?'
    : row.kind === 'sign_in' ? `End the sign-in of ${row.createdBy.email}?` : `Cancel the ${KIND_WORD[row.kind]} ${row.name ? `"${row.name}"` : 'without a name'}?`;
  return (
    <>
      <Tag value={row.state} />
      {row.state === 'active' && props.canCancel ? (
        <>
          {' '}
          <ConfirmAction id={`cancel-${row.jti}`} action={props.cancelAction} label={ACTION_LABEL[row.kind]} subject={row.kind === 'sign_in' ? `of ${row.createdBy.email}` : row.name ?? undefined} title={title} danger>
            <p>
              {row.kind === 'connected_app'
                ? 'The assistant loses access to every project at once, and the API tokens and upload passes it created are canceled with it.'
                : row.own
                  ? 'This is the sign-in you are using: you are signed out everywhere at once.'
                  : row.kind === 'sign_in'
                    ? 'Its sessions end at once, on every project.'
                    : 'It stops working at once. This cannot be undone.'}
            </p>
          </ConfirmAction>
        </>
      ) : null}
    </>
  );
}

const name = (row: CredentialRow, fallback: string): Child => (
  <>
    <span>{row.name || fallback}</span>
    {row.madeBy ? <span class="small muted"> (made by {row.madeBy})</span> : null}
  </>
);

export function CredentialLists(props: {
  rows: { apiTokens: CredentialRow[]; uploadPasses: CredentialRow[]; signIns: CredentialRow[]; connectedApps: CredentialRow[] };
  timezone: string; cancelAction: (jti: string) => string; canCancel: boolean;
}) {
  const time = (iso: string | null) => <Time iso={iso} timezone={props.timezone} />;
  const state: Column<CredentialRow> = { label: 'State', cell: (r) => <StateCell row={r} cancelAction={props.cancelAction(r.jti)} canCancel={props.canCancel} /> };
  const by: Column<CredentialRow> = { label: 'Created by', cell: (r) => <span>{r.createdBy.email}</span> };
  return (
    <>
      <h2 id="api-tokens">API tokens</h2>
      {props.rows.apiTokens.length ? (
        <Table caption="API tokens of this project" captionHidden rows={props.rows.apiTokens} columns={[
          { label: 'Name', cell: (r) => name(r, 'Unnamed token') },
          { label: 'Permissions', cell: (r) => <span>{(r.permissions ?? []).join(', ')}</span> },
          by,
          { label: 'Created', cell: (r) => time(r.createdAt) },
          { label: 'Expires', cell: (r) => time(r.expiresAt) },
          { label: 'Last used', cell: (r) => time(r.lastUsedAt) },
          state,
        ]} />
      ) : <Empty><p>No API tokens on this page. Create one below to call the API from a script.</p></Empty>}

      <h2 id="upload-passes">Upload passes</h2>
      {props.rows.uploadPasses.length ? (
        <Table caption="Upload passes of this project" captionHidden rows={props.rows.uploadPasses} columns={[
          { label: 'Name', cell: (r) => name(r, 'Unnamed pass') },
          by,
          { label: 'Created', cell: (r) => time(r.createdAt) },
          { label: 'Expires', cell: (r) => time(r.expiresAt) },
          { label: 'Last used', cell: (r) => time(r.lastUsedAt) },
          state,
        ]} />
      ) : <Empty><p>No upload passes on this page. Create one below for the command-line client in CI.</p></Empty>}

      <h2 id="sign-ins">Sign-ins</h2>
      {props.rows.signIns.length ? (
        <Table caption="Sign-ins with a session on this project" captionHidden rows={props.rows.signIns} columns={[
          { label: 'Person', cell: (r) => <><span>{r.createdBy.email}</span>{r.own ? <span class="small muted"> (this sign-in)</span> : null}</> },
          { label: 'Signed in', cell: (r) => time(r.createdAt) },
          { label: 'Expires', cell: (r) => time(r.expiresAt) },
          { label: 'Last used', cell: (r) => time(r.lastUsedAt) },
          state,
        ]} />
      ) : <Empty><p>No sign-ins on this page.</p></Empty>}

      <h2 id="connected-apps">Connected apps</h2>
      {props.rows.connectedApps.length ? (
        <Table caption="AI assistants connected by people who reach this project" captionHidden rows={props.rows.connectedApps} columns={[
          { label: 'Client', cell: (r) => <span>{r.name ?? 'Unnamed client'}</span> },
          { label: 'Scopes', cell: (r) => <span>{(r.scopes ?? []).join(', ') || 'none'}</span> },
          { label: 'Connected by', cell: (r) => <span>{r.createdBy.email}</span> },
          { label: 'Connected', cell: (r) => time(r.createdAt) },
          { label: 'Last used', cell: (r) => time(r.lastUsedAt) },
          state,
        ]} />
      ) : <Empty><p>No connected apps. Add the MCP server to an AI assistant: it opens a sign-in and asks you to approve it.</p></Empty>}
    </>
  );
}

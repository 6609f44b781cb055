// The server-rendered pages of the MCP server's OAuth sign-in and approval (the handlers that serve them
// live with the OAuth routes). Each function returns a complete HTML document as a string; the handlers
// send it with `Content-Security-Policy: PAGE_CSP`. Plain HTML forms, assets of this origin only; every value is
// escaped by hono/jsx (text and attributes). The one script is the continue page's, a static file of
// this origin (public/authorize/continue.js), allowed there only (CONTINUE_PAGE_CSP).
import type { JSX } from 'hono/jsx/jsx-runtime';
import type { Child } from 'hono/jsx';
import { ClientSummary, Document, EmailSignInForm, HiddenInput, MailIcon, StatusIcon } from './layout';

/**
 * The Content-Security-Policy sent with every page: nothing may load but the stylesheet of this origin (and data: images).
 * No form-action: the approval's POST is answered with a redirect to the assistant's own redirect URI.
 */
export const PAGE_CSP = "default-src 'none'; style-src 'self'; img-src data:; frame-ancestors 'none'; base-uri 'none'";

/** Where the continue page's script is served from (a static asset: public/authorize/continue.js). */
export const CONTINUE_SCRIPT = '/authorize/continue.js';
/** PAGE_CSP plus scripts of this origin: the continue page's one script, which reads the link's fragment. */
export const CONTINUE_PAGE_CSP = PAGE_CSP.replace("default-src 'none';", "default-src 'none'; script-src 'self';");

export interface ClientFacts {
  /** Self-asserted by the client (dynamic registration): shown, marked unverified. */
  clientName: string;
  /** Where the access will be sent: the hostname of the redirect URI. */
  redirectHost: string;
  /** The redirect goes to an app on this computer (127.0.0.1 / localhost): the page warns. */
  redirectIsLoopback: boolean;
}

export interface ScopeChoice {
  value: string;
  label: string;
  description: string;
  checked: boolean;
}

function render(page: JSX.Element): string {
  const html = page.toString();
  // Every component here is synchronous; a Promise would mean an async component slipped in.
  if (typeof html !== 'string') throw new Error('OAuth pages must render synchronously');
  return '<!doctype html>' + html;
}

function facts(input: ClientFacts) {
  return <ClientSummary clientName={input.clientName} redirectHost={input.redirectHost} redirectIsLoopback={input.redirectIsLoopback} />;
}

/** "Sign in to connect <client> to Posture": one email field; the form POSTs `request` and `email` to `action`. */
export function signInPage(input: ClientFacts & { action: string; requestId: string; email?: string; error?: string; dashboardHref?: string }): string {
  const error = input.error?.trim() ? input.error : undefined;
  return render(
    <Document title="Sign in">
      <h1>
        Sign in to connect <span class="wrap">{input.clientName}</span> to Posture
      </h1>
      <p class="muted lead">An assistant asked to use Posture on your behalf. Sign in first; you will see exactly what it asks for before anything is allowed.</p>
      {facts(input)}
      {input.dashboardHref ? (
        <div class="handoff">
          <p class="label">Signed in on the Posture dashboard in this browser?</p>
          <a class="btn btn-secondary btn-block" href={safeHref(input.dashboardHref)}>
            Continue with your dashboard sign-in
          </a>
          <p class="muted small">No email needed: the dashboard asks you to confirm who you are, then you choose what the assistant may do. Or sign in by email:</p>
        </div>
      ) : null}
      <EmailSignInForm action={input.action} email={input.email} error={error}>
        <HiddenInput name="request" value={input.requestId} />
      </EmailSignInForm>
    </Document>,
  );
}

/** "Check your email": the sign-in link is on its way (if the address can sign in). */
export function checkEmailPage(input: { email: string; local?: boolean; again?: Child }): string {
  return render(
    <Document title="Check your email">
      <MailIcon />
      <h1>Check your email</h1>
      <p>
        We sent a sign-in link to <strong class="wrap">{input.email}</strong>, if that address can sign in to Posture.
      </p>
      <ul class="steps">
        <li>Open the link in this same browser.</li>
        <li>It is valid for 15 minutes and works once.</li>
      </ul>
      <p class="muted small">
        No email after a few minutes? Check your spam folder, or {input.again ?? 'start connecting again from your assistant'}. At most five unused links wait
        for one address at a time.
      </p>
      {input.local ? (
        <div class="callout callout-info">
          <p>
            Running Posture locally with <span class="mono">wrangler dev</span>? No email is sent: the message is written to a file, and the
            dev server logs its path.
          </p>
        </div>
      ) : null}
    </Document>,
  );
}

/**
 * "Continue signing in", for the emailed link. Opening the link (a GET) does not use it up, since mail
 * scanners open links too; this button POSTs `request` and `token` to `action`, and that signs in. The
 * token is in the link's fragment, which never reaches the server: the page's script (CONTINUE_SCRIPT)
 * copies it into the empty `token` field and takes it out of the address bar.
 */
export function continuePage(input: ClientFacts & { action: string; requestId: string }): string {
  return render(
    <Document title="Continue signing in" script={CONTINUE_SCRIPT}>
      <h1>Continue signing in</h1>
      <p class="muted lead">
        You are signing in to connect <strong class="wrap">{input.clientName}</strong> to Posture. Next you will choose what it may do.
      </p>
      {facts(input)}
      <form method="post" action={input.action}>
        <HiddenInput name="request" value={input.requestId} />
        <HiddenInput name="token" value="" />
        <noscript>
          <div class="callout callout-error form-error">
            <p>This page needs JavaScript to read the sign-in link. Turn it on for this site and open the link again.</p>
          </div>
        </noscript>
        <button type="submit" class="btn btn-primary btn-block">
          Continue
        </button>
      </form>
      <p class="after">If you did not ask to sign in, close this page.</p>
    </Document>,
  );
}

type ApproveInput = ClientFacts & {
  action: string;
  requestId: string;
  handle: string;
  person: { email: string; name: string };
  organizations: { id: string; name: string }[];
  selectedOrgId?: string;
  scopes: ScopeChoice[];
  /** Why the last submission was not accepted (e.g. "Choose at least one permission."); shown as an alert. */
  error?: string;
  /** The dashboard's page listing connected apps (a project's Credentials), where the person disconnects it. */
  connectedAppsHref?: string;
};

function OrganizationChoice(props: { organizations: { id: string; name: string }[]; selectedOrgId?: string }) {
  const orgs = props.organizations;
  if (orgs.length === 0) {
    return (
      <div class="field">
        <p class="label">Organization</p>
        <p class="none">You are not a member of any organization, so there is nothing the assistant could use.</p>
      </div>
    );
  }
  if (orgs.length === 1) {
    const only = orgs[0]!;
    return (
      <>
        <dl class="field">
          <dt class="label">Organization</dt>
          <dd class="value">{only.name}</dd>
        </dl>
        <HiddenInput name="org" value={only.id} />
      </>
    );
  }
  const selected = orgs.some((org) => org.id === props.selectedOrgId) ? props.selectedOrgId : undefined;
  return (
    <div class="field">
      <label class="label" for="org">
        Organization
      </label>
      <p class="hint" id="org-hint">
        The assistant will work in this organization.
      </p>
      <select class="select" id="org" name="org" required aria-describedby="org-hint">
        {selected === undefined ? (
          <option value="" selected>
            Choose an organization
          </option>
        ) : null}
        {orgs.map((org) => (
          <option value={org.id} selected={org.id === selected}>
            {org.name}
          </option>
        ))}
      </select>
    </div>
  );
}

function ScopeList(props: { scopes: ScopeChoice[] }) {
  return (
    <fieldset>
      <legend>Allow the assistant to</legend>
      {props.scopes.length === 0 ? (
        <p class="none">Nothing beyond signing in: no permissions were requested.</p>
      ) : (
        <ul class="scopes">
          {props.scopes.map((scope, index) => (
            <li class="scope">
              <input type="checkbox" id={`scope-${index}`} name="scope" value={scope.value} checked={scope.checked} aria-describedby={`scope-${index}-desc`} />
              <span class="scope-text">
                <label class="scope-label" for={`scope-${index}`}>
                  {scope.label}
                </label>
                <span class="scope-desc" id={`scope-${index}-desc`}>
                  {scope.description}
                </span>
              </span>
            </li>
          ))}
        </ul>
      )}
    </fieldset>
  );
}

/** "Allow <client> to use Posture as <email>?": the client's facts, the organization, the scopes, Deny / Allow. */
export function approvePage(input: ApproveInput): string {
  const noOrganization = input.organizations.length === 0;
  return render(
    <Document title="Allow access">
      <h1>
        Allow <span class="wrap">{input.clientName}</span> to use Posture as <span class="wrap">{input.person.email}</span>?
      </h1>
      {input.person.name ? (
        <p class="muted lead">
          Signed in as <span class="wrap">{input.person.name}</span>.
        </p>
      ) : null}
      {facts(input)}
      <form method="post" action={input.action}>
        <HiddenInput name="request" value={input.requestId} />
        <HiddenInput name="handle" value={input.handle} />
        {input.error?.trim() ? (
          <div class="callout callout-error form-error" role="alert">
            <p>{input.error}</p>
          </div>
        ) : null}
        <OrganizationChoice organizations={input.organizations} selectedOrgId={input.selectedOrgId} />
        <ScopeList scopes={input.scopes} />
        <p class="note">
          The assistant acts with your own permissions and never more. You can disconnect it at any time from a project's Credentials area
          ({input.connectedAppsHref ? <a href={safeHref(input.connectedAppsHref)} target="_blank" rel="noopener noreferrer">Connected apps on the dashboard (opens a new tab)</a> : 'Connected apps'}).
        </p>
        <div class="actions">
          {/* Deny comes first: it is the form's default button (Enter), and it skips validation. */}
          <button type="submit" class="btn btn-secondary" name="decision" value="deny" formnovalidate>
            Deny
          </button>
          <button type="submit" class="btn btn-primary" name="decision" value="approve" disabled={noOrganization}>
            Allow
          </button>
        </div>
      </form>
    </Document>,
  );
}

/** Only http(s) and relative links: anything else (javascript:, data:) is dropped. */
function safeHref(href: string | undefined): string | undefined {
  if (!href) return undefined;
  try {
    const url = new URL(href, 'https://posture.invalid/');
    return url.protocol === 'https:' || url.protocol === 'http:' ? href : undefined;
  } catch {
    return undefined;
  }
}

/** A page with a title and a message: an expired or used link, another browser, an invalid request, a denial. */
export function messagePage(input: { title: string; message: string; status?: 'error' | 'info'; retryHref?: string }): string {
  const status = input.status ?? 'info';
  const retry = safeHref(input.retryHref);
  return render(
    <Document title={input.title}>
      <StatusIcon status={status} />
      <h1>{input.title}</h1>
      <p class="wrap">{input.message}</p>
      {retry ? (
        <div class="actions">
          <a class="btn btn-secondary" href={retry}>
            Start again
          </a>
        </div>
      ) : null}
    </Document>,
  );
}

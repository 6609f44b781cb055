// The frame every OAuth page of the MCP server and the dashboard's sign-in pages share: the document,
// the one stylesheet (a static asset of this origin), the "Posture" brand above a centered card, and the
// pieces more than one page shows (the client's facts). No inline script or style: the pages are sent
// with PAGE_CSP (index.tsx), which allows this origin's stylesheet and data: images only (the continue
// page adds its one script of this origin). hono/jsx escapes every text child and attribute value.
import type { Child } from 'hono/jsx';
import { ASSET_PATHS } from '../../dashboard/assets.gen';

/** The one stylesheet of these pages and the dashboard (src/dashboard/static/dashboard.css, a static asset). */
export const STYLESHEET = ASSET_PATHS['dashboard.css'];

/** The shield that stands for Posture (inline SVG: no image request). */
export function BrandMark() {
  return (
    <svg class="brand-mark" viewBox="0 0 32 32" aria-hidden="true" focusable="false">
      <path d="M16 2.5 4.5 6.8v8.4c0 7.1 4.8 12.6 11.5 14.3 6.7-1.7 11.5-7.2 11.5-14.3V6.8L16 2.5Z" fill="#1f5fd1" />
      <path d="m10.5 16.2 3.7 3.7 7.4-7.6" fill="none" stroke="#ffffff" stroke-width="2.6" stroke-linecap="round" stroke-linejoin="round" />
    </svg>
  );
}

/**
 * A complete page: the brand, then the card (`<main>`) holding the page's one `<h1>` and content. `script`
 * names a script of this origin to load (deferred); the page's CSP must allow it.
 */
export function Document(props: { title: string; children: Child; footer?: Child; script?: string }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex" />
        <meta name="color-scheme" content="light dark" />
        <title>{`${props.title} · Posture`}</title>
        <link rel="stylesheet" href={STYLESHEET} />
        {/* No favicon request (a data: URL the CSP allows). */}
        <link rel="icon" href="data:," />
        {props.script ? <script src={props.script} defer /> : null}
      </head>
      <body>
        <div class="page">
          <header class="brand">
            <BrandMark />
            <span class="brand-name">Posture</span>
          </header>
          <main class="card">{props.children}</main>
          {props.footer ? <footer class="foot">{props.footer}</footer> : null}
        </div>
      </body>
    </html>
  );
}

export interface ClientFactsProps {
  clientName: string;
  redirectHost: string;
  redirectIsLoopback: boolean;
}

function AppIcon() {
  return (
    <svg class="app-icon" viewBox="0 0 40 40" aria-hidden="true" focusable="false">
      <rect x="1" y="1" width="38" height="38" rx="9" fill="none" stroke="currentColor" stroke-width="2" />
      <rect x="10" y="11" width="20" height="14" rx="2" fill="none" stroke="currentColor" stroke-width="2" />
      <path d="M16 30h8M20 25v5" stroke="currentColor" stroke-width="2" stroke-linecap="round" />
    </svg>
  );
}

/**
 * What we know about the connecting client: its self-asserted (unverified) name, the host its access will
 * be sent to, and, for a loopback redirect, the warning that this is an app on this computer.
 */
export function ClientSummary(props: ClientFactsProps) {
  return (
    <section class="client" aria-label="The app asking for access">
      <div class="app">
        <AppIcon />
        <div class="app-text">
          <p class="app-name">
            {props.clientName}{' '}
            <span class="badge">Unverified</span>
          </p>
          <p class="app-note">The app gave this name itself. Posture has not verified it.</p>
        </div>
      </div>
      <p class="dest">
        Access will be sent to <span class="mono em">{props.redirectHost}</span>
      </p>
      {props.redirectIsLoopback ? (
        <div class="callout callout-warn">
          <p>
            <strong>This is an app on this computer.</strong> Continue only if you just started connecting from this app.
          </p>
        </div>
      ) : null}
    </section>
  );
}

/** The email address field of a sign-in form, its hint and its error tied to it. */
function EmailField(props: { email?: string; error?: string }) {
  return (
    <div class="field">
      <label class="label" for="email">
        Email address
      </label>
      <p class="hint" id="email-hint">
        We will email you a link to sign in. No password needed.
      </p>
      {props.error ? (
        <p class="field-error" id="email-error" role="alert">
          <ErrorIcon />
          <span>{props.error}</span>
        </p>
      ) : null}
      <input
        class="input" type="email" id="email" name="email" autocomplete="email" autocapitalize="off" spellcheck={false} required
        value={props.email ?? ''} aria-describedby={props.error ? 'email-error email-hint' : 'email-hint'} aria-invalid={props.error ? 'true' : undefined}
      />
    </div>
  );
}

/** The form that asks for a sign-in link: hidden fields (children), the email field, the button. */
export function EmailSignInForm(props: { action: string; id?: string; email?: string; error?: string; children?: Child }) {
  return (
    <form method="post" action={props.action} id={props.id}>
      {props.children}
      <EmailField email={props.email} error={props.error} />
      <button type="submit" class="btn btn-primary btn-block">
        Email me a sign-in link
      </button>
    </form>
  );
}

export function HiddenInput(props: { name: string; value: string }) {
  return <input type="hidden" name={props.name} value={props.value} />;
}

/** An icon for the message page: an "i" in a circle (info) or an "!" in a triangle (error). */
export function StatusIcon(props: { status: 'error' | 'info' }) {
  if (props.status === 'error') {
    return (
      <svg class="icon icon-error" viewBox="0 0 44 44" aria-hidden="true" focusable="false">
        <path d="M22 5 40 37H4L22 5Z" fill="none" stroke="currentColor" stroke-width="2.5" stroke-linejoin="round" />
        <path d="M22 17v10" stroke="currentColor" stroke-width="2.5" stroke-linecap="round" />
        <circle cx="22" cy="32" r="1.7" fill="currentColor" />
      </svg>
    );
  }
  return (
    <svg class="icon icon-info" viewBox="0 0 44 44" aria-hidden="true" focusable="false">
      <circle cx="22" cy="22" r="18" fill="none" stroke="currentColor" stroke-width="2.5" />
      <path d="M22 20v11" stroke="currentColor" stroke-width="2.5" stroke-linecap="round" />
      <circle cx="22" cy="14" r="1.7" fill="currentColor" />
    </svg>
  );
}

/** An envelope, for "Check your email". */
export function MailIcon() {
  return (
    <svg class="icon icon-info" viewBox="0 0 44 44" aria-hidden="true" focusable="false">
      <rect x="4" y="9" width="36" height="26" rx="3" fill="none" stroke="currentColor" stroke-width="2.5" />
      <path d="m5 11 17 13 17-13" fill="none" stroke="currentColor" stroke-width="2.5" stroke-linejoin="round" />
    </svg>
  );
}

/** The small "!" in a circle before a field's error message. */
export function ErrorIcon() {
  return (
    <svg viewBox="0 0 16 16" aria-hidden="true" focusable="false">
      <circle cx="8" cy="8" r="7" fill="currentColor" />
      <path class="cut-stroke" d="M8 4.2v4.6" stroke-width="1.8" stroke-linecap="round" />
      <circle class="cut-fill" cx="8" cy="11.6" r="1.1" />
    </svg>
  );
}

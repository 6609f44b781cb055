// The frame every OAuth page of the MCP server shares: the document, its inline style sheet, the
// "Posture" brand above a centered card, and the pieces more than one page shows (the client's facts).
// No external assets and no inline script: the pages are sent with PAGE_CSP (index.tsx), which allows
// inline styles and data: images only (the continue page adds its one script of this origin). hono/jsx escapes every text child and attribute value; the one
// raw insertion is the constant style sheet below, never client data.
import type { Child } from 'hono/jsx';

// Colours chosen for WCAG AA: body text at least 4.5:1 against its background (the muted grey is 6:1
// on white and the panel, 5.9:1 on the dark card), control borders and focus rings at least 3:1.
const STYLES = `
*, *::before, *::after { box-sizing: border-box; }
:root {
  color-scheme: light dark;
  --bg: #f3f5f7; --card: #ffffff; --ink: #1f2328; --muted: #57606a; --rule: #d0d7de; --panel: #f6f8fa;
  --field: #ffffff; --field-rule: #6e7781;
  --accent: #1f5fd1; --accent-hover: #194fb0; --accent-ink: #ffffff; --link: #0b57d0; --focus: #0a3d8f;
  --warn-bg: #fff8c5; --warn-rule: #d4a72c; --warn-ink: #4d3800;
  --error-bg: #fff1f0; --error-rule: #e5534b; --error-ink: #a40e26;
  --info-bg: #eef4ff; --info-rule: #9ab8f0; --info-ink: #1a3f8f;
  --shadow: 0 1px 2px rgba(31, 35, 40, .04), 0 8px 24px rgba(31, 35, 40, .07);
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0d1117; --card: #161b22; --ink: #e6edf3; --muted: #9198a1; --rule: #30363d; --panel: #0f141b;
    --field: #0d1117; --field-rule: #848d97;
    --accent: #2563eb; --accent-hover: #1d4ed8; --accent-ink: #ffffff; --link: #58a6ff; --focus: #79b8ff;
    --warn-bg: #2b2111; --warn-rule: #9e6a03; --warn-ink: #f0d58a;
    --error-bg: #2d1214; --error-rule: #b62324; --error-ink: #ffa198;
    --info-bg: #111d33; --info-rule: #1f6feb; --info-ink: #a5c8ff;
    --shadow: 0 8px 24px rgba(1, 4, 9, .5);
  }
}
html { -webkit-text-size-adjust: 100%; text-size-adjust: 100%; }
body {
  margin: 0; min-height: 100vh; background: var(--bg); color: var(--ink);
  font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "Helvetica Neue", Arial, sans-serif;
}
.page { max-width: 42rem; margin: 0 auto; padding: 32px 16px 48px; }
.brand { display: flex; align-items: center; justify-content: center; gap: 10px; margin: 0 0 16px; }
.brand-mark { width: 32px; height: 32px; flex: none; }
.brand-name { font-size: 22px; font-weight: 700; letter-spacing: -.01em; }
.card { background: var(--card); border: 1px solid var(--rule); border-radius: 12px; padding: 28px 32px; box-shadow: var(--shadow); }
.card > :last-child, .card form > :last-child { margin-bottom: 0; }
.foot { margin: 20px 4px 0; text-align: center; color: var(--muted); font-size: 13px; }
h1 { margin: 0 0 12px; font-size: 22px; line-height: 1.35; font-weight: 650; overflow-wrap: anywhere; }
p { margin: 0 0 12px; }
a { color: var(--link); text-underline-offset: 2px; }
strong, .em { font-weight: 650; }
.muted { color: var(--muted); }
.small { font-size: 14px; }
.lead { margin-bottom: 20px; }
.wrap { overflow-wrap: anywhere; }
.mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace; font-size: .94em; overflow-wrap: anywhere; }
.icon { display: block; width: 44px; height: 44px; margin: 0 0 16px; }
.icon-info { color: var(--accent); }
.icon-error { color: var(--error-ink); }

.client { margin: 0 0 20px; padding: 14px 16px; background: var(--panel); border: 1px solid var(--rule); border-radius: 8px; }
.app { display: flex; gap: 12px; align-items: flex-start; }
.app-icon { width: 40px; height: 40px; flex: none; color: var(--muted); }
.app-text { min-width: 0; }
.app-name { margin: 0 0 2px; font-weight: 650; overflow-wrap: anywhere; }
.app-note { margin: 0; color: var(--muted); font-size: 14px; }
.badge {
  display: inline-block; margin-left: 6px; padding: 0 8px; vertical-align: 1px; white-space: nowrap;
  border: 1px solid var(--warn-rule); border-radius: 999px; background: var(--warn-bg); color: var(--warn-ink);
  font-size: 12px; line-height: 20px; font-weight: 600;
}
.dest { margin: 12px 0 0; padding-top: 12px; border-top: 1px solid var(--rule); font-size: 15px; }

.callout { margin: 12px 0 0; padding: 10px 12px; border: 1px solid; border-left-width: 4px; border-radius: 6px; font-size: 14px; }
.callout p { margin: 0; }
.callout-warn { background: var(--warn-bg); border-color: var(--warn-rule); color: var(--warn-ink); }
.callout-info { background: var(--info-bg); border-color: var(--info-rule); color: var(--info-ink); }
.callout-error { background: var(--error-bg); border-color: var(--error-rule); color: var(--error-ink); }
.form-error { margin: 0 0 20px; font-weight: 600; }

form { margin: 0; }
.field { margin: 0 0 20px; }
.label { display: block; margin: 0 0 4px; font-weight: 650; }
.hint { margin: 0 0 8px; color: var(--muted); font-size: 14px; }
.field-error { margin: 0 0 8px; color: var(--error-ink); font-size: 14px; font-weight: 650; }
.field-error { display: flex; gap: 6px; align-items: flex-start; }
.field-error svg { flex: none; width: 16px; height: 16px; margin-top: 2px; }
.field-error .cut-stroke { stroke: var(--card); }
.field-error .cut-fill { fill: var(--card); }
.input, .select {
  display: block; width: 100%; min-height: 44px; margin: 0; padding: 9px 12px;
  font: inherit; color: var(--ink); background: var(--field); border: 1px solid var(--field-rule); border-radius: 6px;
}
.input[aria-invalid="true"] { border: 2px solid var(--error-ink); padding: 8px 11px; }
.value { margin: 0; padding: 10px 12px; background: var(--panel); border: 1px solid var(--rule); border-radius: 6px; font-weight: 600; overflow-wrap: anywhere; }

fieldset { min-width: 0; margin: 0 0 20px; padding: 0; border: 0; }
legend { padding: 0; margin: 0 0 8px; font-weight: 650; }
.scopes { margin: 0; padding: 0; list-style: none; border: 1px solid var(--rule); border-radius: 8px; }
.scope { display: flex; gap: 12px; align-items: flex-start; padding: 10px 14px; }
.scope + .scope { border-top: 1px solid var(--rule); }
.scope input { flex: none; width: 20px; height: 20px; margin: 2px 0 0; accent-color: var(--accent); }
.scope-text { min-width: 0; }
.scope-label { display: block; font-weight: 600; overflow-wrap: anywhere; }
.scope-desc { display: block; margin-top: 2px; color: var(--muted); font-size: 14px; overflow-wrap: anywhere; }
.none { margin: 0; padding: 12px 14px; border: 1px dashed var(--rule); border-radius: 8px; color: var(--muted); font-size: 14px; }
.steps { margin: 0 0 16px; padding-left: 22px; }
.steps li + li { margin-top: 4px; }
.note { margin: 0 0 4px; color: var(--muted); font-size: 14px; }

.btn {
  display: inline-flex; align-items: center; justify-content: center; min-height: 44px; margin: 0; padding: 10px 20px;
  font: inherit; font-weight: 650; line-height: 1.25; text-align: center; text-decoration: none;
  border: 1px solid transparent; border-radius: 6px; cursor: pointer;
}
.btn-primary { background: var(--accent); border-color: var(--accent); color: var(--accent-ink); }
.btn-primary:hover { background: var(--accent-hover); border-color: var(--accent-hover); }
.btn-secondary { background: var(--card); border-color: var(--field-rule); color: var(--ink); }
.btn-secondary:hover { background: var(--panel); }
.btn[disabled] { opacity: .55; cursor: not-allowed; }
.btn-block { display: flex; width: 100%; }
.actions { display: flex; gap: 12px; margin-top: 20px; }
.actions .btn { flex: 1 1 0; }
.after { margin: 16px 0 0; color: var(--muted); font-size: 14px; text-align: center; }

:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.input:focus-visible, .select:focus-visible { outline-offset: 1px; border-color: var(--focus); }
.scope input:focus-visible { outline-offset: 3px; }

@media (max-width: 480px) {
  .page { padding: 24px 12px 32px; }
  .brand { margin-bottom: 16px; }
  .card { padding: 20px; border-radius: 10px; }
  h1 { font-size: 20px; }
}
@media (forced-colors: active) {
  .btn, .input, .select { border: 1px solid ButtonText; }
  .badge, .callout { border-color: CanvasText; }
}
`;

/** The shield that stands for Posture (inline SVG: no image request). */
function BrandMark() {
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
        <style dangerouslySetInnerHTML={{ __html: STYLES }} />
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

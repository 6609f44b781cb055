// The dashboard's sign-in pages: the email form, "check your email", and the emailed link's page. The
// link carries its one-time token in the fragment, which never reaches a server: the page's script
// (SIGN_IN_SCRIPT) copies it into the hidden form and shows that form's button; opening the link uses
// nothing up (mail scanners open links too), the button does. One layout with the MCP pages.
import { Document, ErrorIcon, HiddenInput, MailIcon } from '../../mcp/pages/layout';
import { renderPage } from './render';

/** The sign-in link page's script, a static asset (public/dashboard/sign-in.js). */
export const SIGN_IN_SCRIPT = '/dashboard/sign-in.js';

export function signInPage(input: { email?: string; error?: string; project?: string }): string {
  const error = input.error?.trim() ? input.error : undefined;
  const sessionAction = input.project ? `/session?project=${encodeURIComponent(input.project)}` : '/session';
  return renderPage(
    <Document title="Sign in" script={SIGN_IN_SCRIPT}>
      <h1>Sign in to Posture</h1>
      {/* Shown by the script when the address holds a sign-in link's token. */}
      <form method="post" action={sessionAction} id="link-form" hidden>
        <HiddenInput name="token" value="" />
        <p class="lead">You opened a sign-in link. Continue to sign in in this browser.</p>
        <button type="submit" class="btn btn-primary btn-block">
          Continue signing in
        </button>
      </form>
      <form method="post" action="/sign-in/email" id="email-form">
        <div class="field">
          <label class="label" for="email">
            Email address
          </label>
          <p class="hint" id="email-hint">
            We will email you a link to sign in. No password needed.
          </p>
          {error ? (
            <p class="field-error" id="email-error" role="alert">
              <ErrorIcon />
              <span>{error}</span>
            </p>
          ) : null}
          <input
            class="input" type="email" id="email" name="email" autocomplete="email" autocapitalize="off" spellcheck={false} required
            value={input.email ?? ''} aria-describedby={error ? 'email-error email-hint' : 'email-hint'} aria-invalid={error ? 'true' : undefined}
          />
        </div>
        <button type="submit" class="btn btn-primary btn-block">
          Email me a sign-in link
        </button>
      </form>
    </Document>,
  );
}

export function checkEmailPage(input: { email: string; local: boolean }): string {
  return renderPage(
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
        No email after a few minutes? Check your spam folder, or <a href="/sign-in">ask for another link</a>. At most five unused links wait for one
        address at a time.
      </p>
      {input.local ? (
        <div class="callout callout-info">
          <p>
            Running Posture locally with <span class="mono">wrangler dev</span>? No email is sent: the message is written to a file, and the dev
            server logs its path.
          </p>
        </div>
      ) : null}
    </Document>,
  );
}

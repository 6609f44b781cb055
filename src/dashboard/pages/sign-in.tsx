// The dashboard's sign-in pages: the email form, "check your email", and the emailed link's page. The
// link carries its one-time token in the fragment, which never reaches a server: the page's script
// (SIGN_IN_SCRIPT) copies it into the hidden form and shows that form's button; opening the link uses
// nothing up (mail scanners open links too), the button does. One layout with the MCP pages.
import { checkEmailPage as checkEmail } from '../../mcp/pages';
import { Document, EmailSignInForm, HiddenInput } from '../../mcp/pages/layout';
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
      <EmailSignInForm action="/sign-in/email" id="email-form" email={input.email} error={error} />
    </Document>,
  );
}

/** "Check your email", the MCP pages' own, offering another link here. */
export const checkEmailPage = (input: { email: string; local: boolean }): string => checkEmail({ ...input, again: <a href="/sign-in">ask for another link</a> });

// The messages that carry a one-time sign-in link: the dashboard's sign-in, an invitation, and the
// sign-in of a person connecting an AI assistant. Plain text, sent by the `send_email` binding (locally
// wrangler writes each to an .eml file and logs its path).
import { EmailMessage } from 'cloudflare:email';
import type { Env } from '../env';
import { newId } from '../lib/ids';

/** How long a sign-in link stays valid. */
export const SIGN_IN_LINK_MINUTES = 15;

/** A header value from user-controlled text: one line, non-ASCII as RFC 2047 UTF-8. */
function headerText(text: string): string {
  const line = text.replace(/[\r\n]+/g, ' ');
  return /^[\x20-\x7e]*$/.test(line) ? line : `=?utf-8?B?${btoa(String.fromCharCode(...new TextEncoder().encode(line)))}?=`;
}

/** One plain-text message through the `send_email` binding (sign-in links here; alerts in src/notify/deliver.ts). */
export async function sendPlainEmail(env: Env, to: string, subject: string, lines: readonly string[]): Promise<void> {
  const raw = [
    `From: Posture <${env.EMAIL_FROM}>`,
    `To: <${to}>`,
    `Subject: ${headerText(subject)}`,
    `Message-ID: <${newId()}@${env.EMAIL_FROM.split('@')[1] ?? 'posture.local'}>`,
    `Date: ${new Date().toUTCString()}`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    '',
    ...lines,
    '',
  ].join('\r\n');
  await env.EMAIL.send(new EmailMessage(env.EMAIL_FROM, to, raw));
}

const dashboard = (env: Env) => env.DASHBOARD_URL.replace(/\/$/, '');

/** The dashboard's sign-in link (the token in the fragment, never in a server log). */
export async function sendSignInEmail(env: Env, to: string, token: string): Promise<void> {
  await sendPlainEmail(env, to, 'Your sign-in link', [
    `Sign in to the posture analysis service with this link (valid ${SIGN_IN_LINK_MINUTES} minutes, once):`,
    '',
    `${dashboard(env)}/sign-in#token=${encodeURIComponent(token)}`,
    '',
    `Or exchange the token yourself: POST /api/v1/auth/sign-in/exchange {"token": "${token}"}`,
  ]);
}

/**
 * The client name an assistant gave itself, fit to quote in an email: printable, one line, at most 80
 * characters. It is still the app's own claim, and the message says so.
 */
export function quotedClientName(name: string): string {
  const printable = name.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]+/gu, ' ').replace(/\s+/g, ' ').trim();
  return [...printable].length > 80 ? `${[...printable].slice(0, 79).join('')}…` : printable || 'an unnamed app';
}

/**
 * The sign-in link of a person connecting an AI assistant: says which assistant (by the name it gave
 * itself), leads to the assistant's Continue page, and offers no way to use the token by hand (that would
 * use the link up without approving anything).
 */
export async function sendAssistantSignInEmail(env: Env, to: string, link: string, clientName: string): Promise<void> {
  await sendPlainEmail(env, to, 'Sign in to connect an AI assistant to Posture', [
    'Someone, hopefully you, is connecting an AI assistant to the posture analysis service with this address.',
    `The assistant calls itself "${quotedClientName(clientName)}" (a name the app gave itself; Posture has not verified it).`,
    '',
    `To continue, open this link in the browser where you started (valid ${SIGN_IN_LINK_MINUTES} minutes, once):`,
    '',
    link,
    '',
    'The link shows a Continue button, then what the assistant asks for; nothing is allowed until you choose.',
    'If you did not start connecting an assistant, ignore this email.',
  ]);
}

/**
 * Invites a person into an organization: the same one-time sign-in link, worded as an invitation.
 * `project`, when given, is named in the message and passed to the dashboard as a hint.
 */
export async function sendInvitationEmail(env: Env, to: string, orgName: string, token: string, project?: { id: string; name: string }): Promise<void> {
  const query = project ? `?project=${encodeURIComponent(project.id)}` : '';
  await sendPlainEmail(env, to, `You are invited to ${orgName}`, [
    `You were invited to the organization ${orgName}${project ? `, project ${project.name},` : ''} on the posture analysis service.`,
    '',
    `Sign in with this link (valid ${SIGN_IN_LINK_MINUTES} minutes, once; afterwards request a new sign-in link with this address):`,
    '',
    `${dashboard(env)}/sign-in${query}#token=${encodeURIComponent(token)}`,
  ]);
}

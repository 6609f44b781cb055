// Sending one message (issue 24, "Safety"): the URL is checked again before every attempt, no redirect
// is followed (a 3xx is a failed attempt), the attempt gives up after 10 s, and at most 64 KB of the
// answer is read (its first bytes are kept in the delivery log). Email goes through the `send_email`
// binding, as sign-in links do.
import { sendPlainEmail } from '../auth/emails';
import type { Env } from '../env';
import type { NotifyEvent } from './events';
import { emailMessage, slackMessage, teamsMessage, type DestinationKind } from './formats';
import { webhookHeaders } from './signing';
import { checkDestinationUrl, isLocalInstance } from './url-guard';

export const DELIVERY_TIMEOUT_MS = 10_000;
export const ANSWER_READ_BYTES = 64 * 1024;
/** Characters of the answer kept in the delivery log. */
export const ANSWER_HEAD_CHARS = 512;

/** A destination as the consumer delivers to it: unsealed, never stored like this. */
export interface OpenDestination {
  id: string;
  kind: DestinationKind;
  url: string | null;
  recipients: string[];
  /** Webhook signing secrets, the current one first (a rotated-out one while it is still valid). */
  secrets: string[];
}

export interface Attempt {
  delivered: boolean;
  statusCode: number | null;
  durationMs: number;
  answerHead: string | null;
  error: string | null;
}

const timeoutOf = (env: Env) => Number(env.NOTIFY_TIMEOUT_MS ?? DELIVERY_TIMEOUT_MS);

/** Reads at most `limit` bytes of a body, then lets the rest go. */
async function readHead(body: ReadableStream<Uint8Array> | null, limit: number): Promise<string> {
  if (!body) return '';
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (size < limit) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value.subarray(0, limit - size));
    size += value.byteLength;
  }
  await reader.cancel().catch(() => undefined);
  const bytes = new Uint8Array(Math.min(size, limit));
  let at = 0;
  for (const chunk of chunks) { bytes.set(chunk, at); at += chunk.byteLength; }
  return new TextDecoder().decode(bytes);
}

/** One POST of a JSON body to the destination's URL. */
async function post(env: Env, url: string, body: string, headers: Record<string, string>): Promise<Attempt> {
  const started = Date.now();
  const finish = (rest: Omit<Attempt, 'durationMs'>): Attempt => ({ ...rest, durationMs: Date.now() - started });
  let target: URL;
  try {
    target = checkDestinationUrl(url, { local: isLocalInstance(env) });
  } catch (error) {
    return finish({ delivered: false, statusCode: null, answerHead: null, error: `refused: ${(error as Error).message}` });
  }
  try {
    const answer = await fetch(target, {
      method: 'POST', body, redirect: 'manual', signal: AbortSignal.timeout(timeoutOf(env)),
      headers: { 'content-type': 'application/json', 'user-agent': 'Posture-Notifications/1', ...headers },
    });
    const head = (await readHead(answer.body, ANSWER_READ_BYTES)).slice(0, ANSWER_HEAD_CHARS);
    if (answer.status >= 300 && answer.status < 400) {
      return finish({ delivered: false, statusCode: answer.status, answerHead: head, error: `redirect to ${answer.headers.get('location') ?? '(no location)'} not followed` });
    }
    return finish({ delivered: answer.ok, statusCode: answer.status, answerHead: head, error: answer.ok ? null : `answered ${answer.status}` });
  } catch (error) {
    const name = (error as Error).name;
    const text = name === 'TimeoutError' || name === 'AbortError' ? `no answer within ${timeoutOf(env) / 1000} s` : String((error as Error).message ?? error);
    return finish({ delivered: false, statusCode: null, answerHead: null, error: text });
  }
}

/**
 * Delivers one message: one event to a webhook (its `webhook-id` the outbox row's id), or a digest of
 * the events to a chat or email destination.
 */
export async function deliver(env: Env, destination: OpenDestination, message: { id: string; events: NotifyEvent[] }): Promise<Attempt> {
  const { kind } = destination;
  if (kind === 'email') {
    const started = Date.now();
    const { subject, lines } = emailMessage(message.events);
    try {
      for (const to of destination.recipients) await sendPlainEmail(env, to, subject, lines);
      return { delivered: true, statusCode: null, durationMs: Date.now() - started, answerHead: null, error: null };
    } catch (error) {
      return { delivered: false, statusCode: null, durationMs: Date.now() - started, answerHead: null, error: String((error as Error).message ?? error) };
    }
  }
  if (kind === 'webhook') {
    const body = JSON.stringify(message.events[0]);
    const headers = await webhookHeaders({ id: message.id, timestampSeconds: Math.floor(Date.now() / 1000), body, secrets: destination.secrets });
    return post(env, destination.url!, body, headers);
  }
  return post(env, destination.url!, JSON.stringify(kind === 'slack' ? slackMessage(message.events) : teamsMessage(message.events)), {});
}

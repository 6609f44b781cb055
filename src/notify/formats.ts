// What each kind of destination receives (issue 24, "Formats"): a webhook the event envelope itself
// (signed, src/notify/signing.ts); Slack a Block Kit message; Teams an Adaptive Card for a Workflows
// webhook; email a short text. Chat and email destinations are paced (about one message a second), so
// events waiting together go out as one digest message. Each says what happened, how bad, where to look.
import type { NotifyEvent } from './events';

export type DestinationKind = 'webhook' | 'slack' | 'teams' | 'email';
export const DESTINATION_KINDS: readonly DestinationKind[] = ['webhook', 'slack', 'teams', 'email'];

/** The least time between two messages to one destination: Slack's incoming webhooks allow about one a second. */
export const SEND_INTERVAL_MS: Record<DestinationKind, number> = { webhook: 20, slack: 1_000, teams: 1_000, email: 1_000 };
/** Events one message carries at most: a webhook one (its body is the event), the others a digest. */
export const EVENTS_PER_MESSAGE: Record<DestinationKind, number> = { webhook: 1, slack: 20, teams: 20, email: 50 };
/** Digest lines shown before "and N more". */
const DIGEST_LINES = 10;

const LEVEL_MARK: Record<string, string> = { critical: '🔴', high: '🟠', medium: '🟡', low: '🔵', info: 'ℹ️' };

const title = (events: NotifyEvent[]) => events.length === 1
  ? `${events[0]!.project.name}: ${events[0]!.summary}`
  : `${events.length} alerts from ${events[0]!.project.name}`;

const line = (event: NotifyEvent) => `${LEVEL_MARK[event.severity] ?? ''} ${event.severity.toUpperCase()} · ${event.summary}`.trim();

/** Escapes text for Slack's mrkdwn (&, <, > are its only specials). */
const slackText = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function detailLines(event: NotifyEvent): string[] {
  const details = event.data.details;
  return Array.isArray(details) ? details.filter((d): d is string => typeof d === 'string').slice(0, 8) : [];
}

/** Slack Block Kit: a header, one section per event (at most ten), the link as a button. */
export function slackMessage(events: NotifyEvent[]): unknown {
  const shown = events.slice(0, DIGEST_LINES);
  const blocks: unknown[] = [{ type: 'header', text: { type: 'plain_text', text: title(events).slice(0, 150), emoji: true } }];
  for (const event of shown) {
    const details = detailLines(event).map((d) => `• ${slackText(d)}`);
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: [`*${slackText(line(event))}*`, ...details].join('\n').slice(0, 3000) } });
    if (event.link) blocks.push({ type: 'actions', elements: [{ type: 'button', text: { type: 'plain_text', text: 'Open' }, url: event.link }] });
  }
  if (events.length > shown.length) blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: `and ${events.length - shown.length} more alerts` }] });
  blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: `Posture · project ${slackText(events[0]!.project.name)}` }] });
  return { text: title(events), blocks };
}

/** Teams (Workflows "post to a channel when a webhook request is received"): an Adaptive Card 1.4 in a message. */
export function teamsMessage(events: NotifyEvent[]): unknown {
  const shown = events.slice(0, DIGEST_LINES);
  const body: unknown[] = [{ type: 'TextBlock', text: title(events), weight: 'Bolder', size: 'Medium', wrap: true }];
  for (const event of shown) {
    body.push({ type: 'TextBlock', text: line(event), weight: 'Bolder', wrap: true, spacing: 'Medium', color: event.severity === 'critical' || event.severity === 'high' ? 'Attention' : 'Default' });
    for (const detail of detailLines(event)) body.push({ type: 'TextBlock', text: `- ${detail}`, wrap: true, spacing: 'None' });
  }
  if (events.length > shown.length) body.push({ type: 'TextBlock', text: `and ${events.length - shown.length} more alerts`, isSubtle: true, wrap: true });
  const link = events.length === 1 ? events[0]!.link : null;
  const card = {
    $schema: 'http://adaptivecards.io/schemas/adaptive-card.json', type: 'AdaptiveCard', version: '1.4', body,
    ...(link ? { actions: [{ type: 'Action.OpenUrl', title: 'Open', url: link }] } : {}),
  };
  return { type: 'message', attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive', contentUrl: null, content: card }] };
}

/** Email: a subject and short plain-text lines. */
export function emailMessage(events: NotifyEvent[]): { subject: string; lines: string[] } {
  const lines: string[] = [];
  for (const event of events.slice(0, DIGEST_LINES * 5)) {
    lines.push(line(event), ...detailLines(event).map((d) => `  - ${d}`));
    if (event.link) lines.push(`  ${event.link}`);
    lines.push('');
  }
  if (events.length > DIGEST_LINES * 5) lines.push(`and ${events.length - DIGEST_LINES * 5} more alerts`, '');
  lines.push(`Sent by Posture for project ${events[0]!.project.name}. Change what you receive under the project's notification rules.`);
  return { subject: `[Posture] ${title(events)}`.slice(0, 200), lines };
}

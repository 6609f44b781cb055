import { z } from '@hono/zod-openapi';
import { ProjectParams, uuidParam } from '../../lib/schemas';
import { EVENT_TYPES, LEVELS } from '../../notify/events';
import { DESTINATION_KINDS } from '../../notify/formats';
import { BANDS } from '../../scoring/model';

const name = z.string().trim().min(1).max(200);
const EventType = z.enum(EVENT_TYPES).openapi({ description: 'An event type (docs/notifications.md).' });
const Recipients = z.array(z.email().max(320)).min(1).max(20).openapi({ description: 'Email destinations only: who receives the messages.' });
const Url = z.string().trim().max(2_000).openapi({ description: 'Webhook, Slack or Teams: an https URL on a public host (no private, loopback or link-local address; no redirect is followed).', example: 'https://hooks.slack.com/services/T000/B000/XXXX' });

export const DestinationParams = ProjectParams.extend({ destinationId: uuidParam('destinationId') });
export const RuleParams = ProjectParams.extend({ ruleId: uuidParam('ruleId') });

export const CreateDestination = z.object({
  kind: z.enum(DESTINATION_KINDS as [string, ...string[]]).openapi({ description: '`webhook` (Standard Webhooks, signed), `slack` (incoming webhook, Block Kit), `teams` (Workflows webhook, Adaptive Card) or `email`.' }),
  name,
  url: Url.optional(),
  recipients: Recipients.optional(),
}).strict().openapi('CreateNotificationDestination');

export const UpdateDestination = z.object({
  name: name.optional(),
  url: Url.optional(),
  recipients: Recipients.optional(),
  enabled: z.boolean().optional().openapi({ description: 'false stops deliveries (messages wait, up to 24 hours); true starts them again, after a person fixed what made the service disable it.' }),
}).strict().openapi('UpdateNotificationDestination');

export const Destination = z.object({
  id: z.string(),
  kind: z.enum(DESTINATION_KINDS as [string, ...string[]]),
  name: z.string(),
  url: z.string().nullable().openapi({ description: 'Masked: scheme, host and the path\'s first segment (a Slack or Teams URL is a secret).', example: 'https://hooks.slack.com/services/…' }),
  recipients: z.array(z.string()).nullable(),
  enabled: z.boolean(),
  disabled_at: z.string().nullable(),
  disabled_reason: z.string().nullable(),
  failing_since: z.string().nullable().openapi({ description: 'The first failed attempt since the last delivered one; after 24 hours of failures the destination is disabled.' }),
  previous_secret_valid_until: z.string().nullable().openapi({ description: 'After a rotation: until when the previous signing secret still signs each message.' }),
  created_at: z.string(),
  created_by: z.record(z.string(), z.unknown()),
  updated_at: z.string(),
}).openapi('NotificationDestination');

export const CreatedDestination = z.object({
  destination: Destination,
  secret: z.string().nullable().openapi({ description: 'Webhooks: the signing secret (`whsec_…`), shown only here. Verify `webhook-signature` with it (Standard Webhooks).' }),
}).openapi('CreatedNotificationDestination');

export const RotatedSecret = z.object({ destination: Destination, secret: z.string() }).openapi('RotatedNotificationSecret');
export const DestinationList = z.object({ destinations: z.array(Destination) }).openapi('NotificationDestinationList');

export const TestSend = z.object({ event: EventType.default('survey.completed') }).strict().openapi('NotificationTestSend');
export const TestSent = z.object({
  event: z.record(z.string(), z.unknown()).openapi({ description: 'The sample event sent (its `data.test` is true).' }),
  message_id: z.string().nullable().openapi({ description: 'The message\'s `webhook-id`: find its attempts in the delivery log.' }),
}).openapi('NotificationTestSent');

export const DeliveryQuery = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(100).openapi({ param: { name: 'limit', in: 'query' } }),
  before: z.string().max(100).optional().openapi({ param: { name: 'before', in: 'query' }, description: 'The `next` of the previous page.' }),
});

export const DeliveryPage = z.object({
  deliveries: z.array(z.object({
    id: z.string(), at: z.string(), event_type: z.string().openapi({ description: 'The event\'s type, or `digest` for a chat or email message carrying several.' }),
    message_ids: z.array(z.string()), attempt: z.number().int(), delivered: z.boolean(), status_code: z.number().int().nullable(), duration_ms: z.number().int(),
    answer: z.string().nullable().openapi({ description: 'The first 512 characters of the answer.' }), error: z.string().nullable(),
  })),
  next: z.string().nullable(),
}).openapi('NotificationDeliveryPage');

export const RuleBody = z.object({
  name,
  events: z.array(EventType).min(1).max(EVENT_TYPES.length),
  destination_ids: z.array(z.uuid()).min(1).max(20),
  subjects: z.array(z.string().trim().min(1).max(300)).max(500).nullish().openapi({ description: 'Only events about these subjects (none: every subject).' }),
  portfolio_ids: z.array(z.uuid()).max(100).nullish().openapi({ description: 'Only portfolio events of these portfolios (none: every portfolio).' }),
  min_severity: z.enum(LEVELS).nullish().openapi({ description: 'Only events at least this bad (each event carries its `severity`).' }),
  min_band: z.enum(BANDS).nullish().openapi({ description: '`portfolio.band_changed`: only when the new band is this one or worse.' }),
  score_drop: z.number().int().min(1).max(100).nullish().openapi({ description: '`portfolio.score_dropped`: the points an axis must drop (default 5).' }),
  stale_days: z.number().int().min(1).max(365).nullish().openapi({ description: '`data_health.stale`: days without a survey (default 30).' }),
  enabled: z.boolean().optional(),
}).strict().openapi('NotificationRuleBody');

export const Rule = z.object({
  id: z.string(), name: z.string(), events: z.array(z.string()), destination_ids: z.array(z.string()), subjects: z.array(z.string()).nullable(),
  portfolio_ids: z.array(z.string()).nullable(), min_severity: z.string().nullable(), min_band: z.string().nullable(), score_drop: z.number().nullable(),
  stale_days: z.number().nullable(), enabled: z.boolean(), created_at: z.string(), updated_at: z.string(),
}).openapi('NotificationRule');
export const RuleList = z.object({ rules: z.array(Rule) }).openapi('NotificationRuleList');

import { defineRoute } from '../../lib/openapi';
import { json, jsonBody, ProjectParams } from '../../lib/schemas';
import type { Access } from '../../middleware/auth';
import {
  CreateDestination, CreatedDestination, DeliveryPage, DeliveryQuery, Destination, DestinationList, DestinationParams, RotatedSecret, Rule, RuleBody,
  RuleList, RuleParams, TestSend, TestSent, UpdateDestination,
} from './notifications.schemas';

const P = '/api/v1/project/{projectId}/v1/notification';
const tags = ['Notifications'];
// Reading is viewing the project (URLs are masked); changing where alerts go is administering it.
const view: Access = { creds: 'any', permissions: ['project:view'] };
const admin: Access = { creds: 'any', permissions: ['project:view', 'project:admin'] };

export const listDestinations = defineRoute({
  operationId: 'listNotificationDestinations', method: 'get', path: `${P}/destination`, tags, summary: 'List notification destinations',
  description: 'Where the project\'s alerts go. URLs are masked; secrets are never answered here.',
  access: view, errors: [404, 503], request: { params: ProjectParams },
  responses: { 200: { description: 'The destinations.', ...json(DestinationList) } },
});

export const createDestination = defineRoute({
  operationId: 'createNotificationDestination', method: 'post', path: `${P}/destination`, tags, summary: 'Add a notification destination',
  description: 'A webhook (its signing secret is answered once), a Slack or Teams webhook URL, or email recipients. URLs must be https on a public host. The URL and secret are stored encrypted. Recorded as `notification.destination.created`.',
  access: admin, errors: [400, 404, 415, 503], request: { params: ProjectParams, ...jsonBody(CreateDestination) },
  responses: { 201: { description: 'The destination, and a webhook\'s signing secret.', ...json(CreatedDestination) } },
});

export const getDestination = defineRoute({
  operationId: 'getNotificationDestination', method: 'get', path: `${P}/destination/{destinationId}`, tags, summary: 'A notification destination',
  access: view, errors: [404, 503], request: { params: DestinationParams },
  responses: { 200: { description: 'The destination.', ...json(Destination) } },
});

export const updateDestination = defineRoute({
  operationId: 'updateNotificationDestination', method: 'patch', path: `${P}/destination/{destinationId}`, tags, summary: 'Change a notification destination',
  description: 'Its name, URL or recipients, or whether it is enabled. Enabling a disabled destination sends what waited (messages are kept 24 hours). Recorded as `notification.destination.updated`.',
  access: admin, errors: [400, 404, 415, 503], request: { params: DestinationParams, ...jsonBody(UpdateDestination) },
  responses: { 200: { description: 'The destination.', ...json(Destination) } },
});

export const deleteDestination = defineRoute({
  operationId: 'deleteNotificationDestination', method: 'delete', path: `${P}/destination/{destinationId}`, tags, summary: 'Remove a notification destination',
  description: 'Its waiting messages and its delivery log go with it; rules stop naming it. Recorded as `notification.destination.deleted`.',
  access: admin, errors: [404, 503], request: { params: DestinationParams },
  responses: { 204: { description: 'Removed.' } },
});

export const rotateSecret = defineRoute({
  operationId: 'rotateNotificationSecret', method: 'post', path: `${P}/destination/{destinationId}/rotate-secret`, tags, summary: 'Rotate a webhook\'s signing secret',
  description: 'A new secret, answered once. For 24 hours each message is signed with both (two signatures in `webhook-signature`), so the receiver can switch without losing one. Recorded as `notification.destination.secret_rotated`.',
  access: admin, errors: [400, 404, 503], request: { params: DestinationParams },
  responses: { 200: { description: 'The destination and its new secret.', ...json(RotatedSecret) } },
});

export const testDestination = defineRoute({
  operationId: 'testNotificationDestination', method: 'post', path: `${P}/destination/{destinationId}/test`, tags, summary: 'Send a sample event now',
  description: 'A sample of the chosen event type (marked `data.test`), delivered at once like any other; its attempts appear in the delivery log. Recorded as `notification.destination.tested`.',
  access: admin, errors: [400, 404, 409, 415, 503], request: { params: DestinationParams, ...jsonBody(TestSend, false) },
  responses: { 202: { description: 'Queued for delivery.', ...json(TestSent) } },
});

export const deliveryLog = defineRoute({
  operationId: 'listNotificationDeliveries', method: 'get', path: `${P}/destination/{destinationId}/delivery`, tags, summary: 'A destination\'s delivery log',
  description: 'Every attempt, newest first: when, which event, which attempt, the status code, how long it took and the first bytes of the answer. Kept 30 days.',
  access: view, errors: [400, 404, 503], request: { params: DestinationParams, query: DeliveryQuery },
  responses: { 200: { description: 'A page of attempts.', ...json(DeliveryPage) } },
});

export const listRules = defineRoute({
  operationId: 'listNotificationRules', method: 'get', path: `${P}/rule`, tags, summary: 'List alert rules',
  access: view, errors: [404, 503], request: { params: ProjectParams },
  responses: { 200: { description: 'The rules.', ...json(RuleList) } },
});

export const createRule = defineRoute({
  operationId: 'createNotificationRule', method: 'post', path: `${P}/rule`, tags, summary: 'Add an alert rule',
  description: 'Which events go to which destinations, narrowed by subjects, portfolios, a minimum severity or band, a score drop or days without a survey. Recorded as `notification.rule.created`.',
  access: admin, errors: [400, 404, 415, 503], request: { params: ProjectParams, ...jsonBody(RuleBody) },
  responses: { 201: { description: 'The rule.', ...json(Rule) } },
});

export const getRule = defineRoute({
  operationId: 'getNotificationRule', method: 'get', path: `${P}/rule/{ruleId}`, tags, summary: 'An alert rule',
  access: view, errors: [404, 503], request: { params: RuleParams },
  responses: { 200: { description: 'The rule.', ...json(Rule) } },
});

export const updateRule = defineRoute({
  operationId: 'updateNotificationRule', method: 'put', path: `${P}/rule/{ruleId}`, tags, summary: 'Replace an alert rule',
  description: 'The whole rule is given. Recorded as `notification.rule.updated`.',
  access: admin, errors: [400, 404, 415, 503], request: { params: RuleParams, ...jsonBody(RuleBody) },
  responses: { 200: { description: 'The rule.', ...json(Rule) } },
});

export const deleteRule = defineRoute({
  operationId: 'deleteNotificationRule', method: 'delete', path: `${P}/rule/{ruleId}`, tags, summary: 'Remove an alert rule',
  description: 'Recorded as `notification.rule.deleted`.',
  access: admin, errors: [404, 503], request: { params: RuleParams },
  responses: { 204: { description: 'Removed.' } },
});

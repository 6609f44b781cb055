import { defineRoute } from '../../lib/openapi';
import { json, OrgParams } from '../../lib/schemas';
import { ActivityPage, ActivityQuery } from './activity.schemas';

export const listActivity = defineRoute({
  operationId: 'listActivity',
  method: 'get',
  path: '/api/v1/org/{orgId}/activity',
  tags: ['Activity'],
  summary: 'Read the activity log',
  description:
    'Who did what. A session sees the organization-level entries and those of the projects it reaches; an API token only its own project\'s. `total` counts every matching entry the caller may see; page with `after` = `lastId` or `before` = `firstId`.',
  access: { creds: 'any', permissions: ['org:view_activity_log'] },
  errors: [404],
  request: { params: OrgParams, query: ActivityQuery },
  responses: { 200: { description: 'A page of entries.', ...json(ActivityPage) } },
});

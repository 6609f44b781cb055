// The activity log: who did what, as the person may see it.
import { z } from 'zod';
import { ACTIVITY_ACTIONS } from '../../control/activity';
import { activityPageText } from '../../control/activity-query';
import { onOrganization } from '../context';
import type { ToolRegistry } from './registry';
import { cursors, limit, sortDir, uuid } from './common';

export function registerActivityTools({ tool }: ToolRegistry): void {
  tool('listActivity', {
    title: 'Activity log',
    description: 'Who did what in the organization and the projects the person reaches, newest first: surveys, uploads, ratings, credentials, connected apps, team changes. `pagination.lastId` is the next page\'s `after`.',
    input: z.object({
      projectId: z.union([z.literal('none'), uuid('A project\'s `uuid` (listProjects).')]).optional().describe('Only this project\'s entries (its `uuid` in listProjects), or none for organization-level ones.'),
      userId: uuid('Only entries this person caused: `actor.id` of an entry.').optional(),
      actions: z.array(z.enum(ACTIVITY_ACTIONS)).optional().describe('Only these actions.'),
      limit: limit(50), sortDir,
      sortBy: z.enum(['createdAt', 'action']).default('createdAt'),
      ...cursors('entries'),
    }),
    scope: 'project:read', readOnly: true,
  }, async (query, context) => activityPageText(context.env.DB, await onOrganization(context, 'org:view_activity_log'), query));
}

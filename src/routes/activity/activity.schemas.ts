import { z } from '@hono/zod-openapi';
import { ACTIVITY_ACTIONS } from '../../control/activity';
import { limitQuery, Pagination } from '../../lib/schemas';

const query = (name: string) => ({ param: { name, in: 'query' as const } });

const actionName = z.enum(ACTIVITY_ACTIONS, { error: (issue) => `Unknown action ${JSON.stringify(issue.input)}; availableActions lists the names.` });

/** `actions=a&actions=b` and `actions=a,b` alike (and both mixed). */
const actionList = (value: unknown) =>
  value === undefined ? undefined : (Array.isArray(value) ? value : [value]).flatMap((item) => String(item).split(',')).map((item) => item.trim()).filter(Boolean);

export const ActivityQuery = z.object({
  projectId: z
    .union([z.literal('none'), z.uuid()], { error: 'projectId must be a project id (UUID) or none.' })
    .optional()
    .openapi({ ...query('projectId'), description: 'Only entries of this project, or `none` for organization-level entries only.', example: 'none' }),
  userId: z.uuid({ error: 'userId must be a UUID.' }).optional().openapi({ ...query('userId'), description: 'Only entries this person caused.' }),
  action: actionName.optional().openapi({ ...query('action'), description: 'Only entries with this action (merged with `actions`).', example: 'credential.created' }),
  actions: z
    .preprocess(actionList, z.array(actionName).min(1, 'actions must name at least one action.').optional())
    .openapi({
      param: { name: 'actions', in: 'query', style: 'form', explode: true },
      description: 'Only entries with one of these actions: repeat the parameter or separate names by commas.',
      type: 'array',
      items: { type: 'string', enum: [...ACTIVITY_ACTIONS] },
      example: ['team.member.added', 'team.member.removed'],
    }),
  limit: limitQuery,
  sortBy: z.enum(['createdAt', 'action']).default('createdAt').openapi({ ...query('sortBy'), description: 'Sort by time, or by action name and then time.' }),
  sortDir: z.enum(['asc', 'desc']).default('desc').openapi({ ...query('sortDir'), description: 'Default `desc`: newest first.' }),
  after: z.uuid({ error: 'after must be an entry id.' }).optional().openapi({ ...query('after'), description: 'Continue past this entry (a page\'s `lastId`).' }),
  before: z.uuid({ error: 'before must be an entry id.' }).optional().openapi({ ...query('before'), description: 'The page just before this entry (a page\'s `firstId`), in the same order. Never with `after`.' }),
});

export const ActivityActor = z
  .object({
    id: z.uuid(),
    email: z.string(),
    name: z.string(),
    kind: z.string().openapi({ description: 'The credential used: `session`, `api_token`, `upload_pass` or `sign_in`.', example: 'session' }),
  })
  .openapi('ActivityActor');

export const ActivityEntry = z
  .object({
    id: z.uuid().openapi({ description: 'Entry id (time-ordered); use as a cursor.' }),
    action: z.string().openapi({ example: 'credential.created' }),
    actor: ActivityActor.nullable().openapi({ description: 'Who acted; null for the service itself.' }),
    projectId: z.uuid().nullable().openapi({ description: 'The project concerned; null for organization-level entries.' }),
    project: z.object({ id: z.uuid(), name: z.string() }).nullable(),
    createdAt: z.string().openapi({ example: '2026-11-21T10:00:00.000Z' }),
    data: z.record(z.string(), z.unknown()).openapi({ description: 'Details of the action.' }),
    traceId: z.string().optional().openapi({ description: 'The request id (`X-Request-Id`) that caused it, when known.' }),
  })
  .openapi('ActivityEntry');

export const ActivityPage = z
  .object({
    entries: z.array(ActivityEntry),
    availableActions: z.array(z.string()).openapi({ description: 'Every action name the log records.' }),
    pagination: Pagination,
  })
  .openapi('ActivityPage');

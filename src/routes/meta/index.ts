// Service-level routes: a bare health answer (the runtime's own ceiling in benchmarks) and the
// published permission list.
import { z } from '@hono/zod-openapi';
import { ALL_PERMISSIONS, PERMISSION_DESCRIPTIONS } from '../../auth/permissions';
import { defineRoute } from '../../lib/openapi';
import { createRouter } from '../../lib/router';

const health = defineRoute({
  operationId: 'getHealth',
  method: 'get',
  path: '/api/v1/health',
  tags: ['Service'],
  summary: 'Health check',
  access: 'public',
  errors: [405],
  responses: {
    200: { description: 'The service answers.', content: { 'application/json': { schema: z.object({ status: z.literal('ok') }) } } },
  },
});

const PermissionInfo = z.object({ permission: z.string(), scope: z.enum(['organization', 'project']), description: z.string() }).openapi('PermissionInfo');

const listPermissions = defineRoute({
  operationId: 'listPermissions',
  method: 'get',
  path: '/api/v1/permission',
  tags: ['Permissions'],
  summary: 'Every permission string',
  description: 'The complete list of permission strings roles can carry (an addition to the specification).',
  access: 'public',
  errors: [405],
  responses: {
    200: { description: 'The permissions.', content: { 'application/json': { schema: z.object({ permissions: z.array(PermissionInfo) }) } } },
  },
});

export const metaRouter = createRouter()
  .openapi(health, (c) => c.json({ status: 'ok' as const }, 200))
  .openapi(listPermissions, (c) =>
    c.json({
      permissions: ALL_PERMISSIONS.map((permission) => ({
        permission,
        scope: permission.startsWith('org:') ? ('organization' as const) : ('project' as const),
        description: PERMISSION_DESCRIPTIONS[permission],
      })),
    }, 200),
  );

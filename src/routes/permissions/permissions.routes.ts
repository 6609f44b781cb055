import { z } from '@hono/zod-openapi';
import { ALL_PERMISSIONS } from '../../auth/permissions';
import { defineRoute } from '../../lib/openapi';
import { json, uuidParam } from '../../lib/schemas';

export const UserParams = z.object({ orgId: uuidParam('orgId'), userId: uuidParam('userId') });

const PermissionName = z.enum(ALL_PERMISSIONS);

export const UserPermissions = z
  .object({
    orgPermissions: z.array(PermissionName).openapi({ example: ['org:view', 'org:create_project'] }),
    projectPermissions: z.record(z.string(), z.array(PermissionName)).openapi({
      description: 'Keyed by project id: each active project of the organization on which the person holds any permission.',
      example: { '3f1c2a9e-6b1d-4c1e-9a51-2f7c0c6b8e10': ['project:view', 'project:edit'] },
    }),
  })
  .openapi('UserPermissions');

export const getUserPermissions = defineRoute({
  operationId: 'getUserPermissions',
  method: 'get',
  path: '/api/v1/org/{orgId}/user/{userId}/permission',
  tags: ['Permissions'],
  summary: 'A person\'s permissions',
  description: 'Anyone may look themselves up; looking up anyone else requires `org:manage_teams` (403 `permission_denied` otherwise). 404 when no such person is a member of the organization.',
  // The permission is needed only for others, so the handler checks it.
  access: { creds: 'session', permissions: [] },
  errors: [404],
  request: { params: UserParams },
  responses: { 200: { description: 'Organization permissions and project permissions by project id.', ...json(UserPermissions) } },
});

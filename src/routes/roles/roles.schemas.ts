import { z } from '@hono/zod-openapi';
import { ALL_PERMISSIONS } from '../../auth/permissions';
import { ROLE_NAME_MAX } from '../../control/roles';
import { uuidParam } from '../../lib/schemas';

export const RoleParams = z.object({ orgId: uuidParam('orgId'), roleId: uuidParam('roleId') });

const PermissionName = z.enum(ALL_PERMISSIONS).openapi({ description: 'A permission string (GET /api/v1/permission lists them).', example: 'project:view' });

export const Role = z
  .object({
    id: z.uuid(),
    name: z.string().openapi({ example: 'Auditor' }),
    systemRole: z.boolean().openapi({ description: 'True for the built-in Admin, Member and Viewer.' }),
    permissions: z.array(PermissionName),
  })
  .openapi('Role');

export const RoleList = z
  .object({ roles: z.array(Role).openapi({ description: 'Built-in Admin, Member and Viewer first, then the organization\'s own by name.' }) })
  .openapi('RoleList');

const RoleName = z.string().trim().min(1, 'name must not be blank.').max(ROLE_NAME_MAX)
  .openapi({ description: 'Unique among the organization\'s roles and the built-in ones (compared without case).', example: 'Auditor' });

export const CreateRoleRequest = z
  .object({
    name: RoleName,
    permissions: z.array(PermissionName).max(ALL_PERMISSIONS.length * 4).openapi({ example: ['project:view', 'project:portfolio:view', 'org:view_activity_log'] }),
  })
  .openapi('CreateRoleRequest');

export const UpdateRoleRequest = z
  .object({
    name: RoleName.optional(),
    permissions: z.array(PermissionName).max(ALL_PERMISSIONS.length * 4).optional().openapi({ description: 'Replaces the role\'s permissions.' }),
  })
  .openapi('UpdateRoleRequest');

import { defineRoute } from '../../lib/openapi';
import type { Access } from '../../middleware/auth';
import { json, jsonBody, OrgParams } from '../../lib/schemas';
import { CreateRoleRequest, Role, RoleList, RoleParams, UpdateRoleRequest } from './roles.schemas';

const tags = ['Roles'];
const manage: Access = { creds: 'any', permissions: ['org:manage_teams'] };

export const listRoles = defineRoute({
  operationId: 'listRoles',
  method: 'get',
  path: '/api/v1/org/{orgId}/role',
  tags,
  summary: 'List roles',
  description: 'Any member of the organization may read roles.',
  access: { creds: 'any' },
  request: { params: OrgParams },
  responses: { 200: { description: 'Built-in roles first, then the organization\'s own.', ...json(RoleList) } },
});

export const getRole = defineRoute({
  operationId: 'getRole',
  method: 'get',
  path: '/api/v1/org/{orgId}/role/{roleId}',
  tags,
  summary: 'Get a role',
  description: 'Any member of the organization may read roles. 404 when no role with the id is built in or belongs to the organization.',
  access: { creds: 'any' },
  errors: [404],
  request: { params: RoleParams },
  responses: { 200: { description: 'The role.', ...json(Role) } },
});

export const createRole = defineRoute({
  operationId: 'createRole',
  method: 'post',
  path: '/api/v1/org/{orgId}/role',
  tags,
  summary: 'Create a role',
  description: 'An addition to the specification. 400 `name_taken` when the organization or the built-in roles already have the name; 400 `invalid_request` for an unknown permission.',
  access: manage,
  request: { params: OrgParams, ...jsonBody(CreateRoleRequest) },
  responses: { 201: { description: 'The new role.', ...json(Role) } },
});

export const updateRole = defineRoute({
  operationId: 'updateRole',
  method: 'put',
  path: '/api/v1/org/{orgId}/role/{roleId}',
  tags,
  summary: 'Change a role',
  description: 'An addition to the specification. Fields left out are unchanged; the change applies at once to every team granting the role. 400 for a built-in role.',
  access: manage,
  errors: [404],
  request: { params: RoleParams, ...jsonBody(UpdateRoleRequest) },
  responses: { 200: { description: 'The role after the change.', ...json(Role) } },
});

export const deleteRole = defineRoute({
  operationId: 'deleteRole',
  method: 'delete',
  path: '/api/v1/org/{orgId}/role/{roleId}',
  tags,
  summary: 'Delete a role',
  description: 'An addition to the specification. 400 for a built-in role; 409 `conflict` while a team still grants it.',
  access: manage,
  errors: [404, 409],
  request: { params: RoleParams },
  responses: { 204: { description: 'Deleted.' } },
});

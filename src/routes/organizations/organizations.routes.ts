import { defineRoute } from '../../lib/openapi';
import { json, jsonBody, OrgParams } from '../../lib/schemas';
import { InviteRequest, InviteResult, MemberList, Organization, OrganizationUpdate, OrgUserParams } from './organizations.schemas';

const tags = ['Organizations'];
const path = '/api/v1/org/{orgId}';

export const getOrganization = defineRoute({
  operationId: 'getOrganization',
  method: 'get',
  path,
  tags,
  summary: 'Get the organization',
  access: { creds: 'any', permissions: ['org:view'] },
  errors: [404],
  request: { params: OrgParams },
  responses: { 200: { description: 'The organization.', ...json(Organization) } },
});

export const updateOrganization = defineRoute({
  operationId: 'updateOrganization',
  method: 'put',
  path,
  tags,
  summary: 'Rename the organization or change its retention',
  description: 'Fields left out are unchanged.',
  access: { creds: 'session', permissions: ['org:manage_org'] },
  errors: [404],
  request: { params: OrgParams, ...jsonBody(OrganizationUpdate) },
  responses: { 200: { description: 'The organization after the change.', ...json(Organization) } },
});

export const deleteOrganization = defineRoute({
  operationId: 'deleteOrganization',
  method: 'delete',
  path,
  tags,
  summary: 'Delete the organization',
  description:
    'Removes every project and every membership at once; every credential of the organization stops working. No API call restores it; it is removed for good after the retention period.',
  access: { creds: 'session', permissions: ['org:manage_org'] },
  errors: [404],
  request: { params: OrgParams },
  responses: { 204: { description: 'Deleted.' } },
});

export const listMembers = defineRoute({
  operationId: 'listOrganizationMembers',
  method: 'get',
  path: `${path}/user`,
  tags,
  summary: 'List the members',
  access: { creds: 'any', permissions: ['org:view'] },
  request: { params: OrgParams },
  responses: { 200: { description: 'The active members.', ...json(MemberList) } },
});

export const removeMember = defineRoute({
  operationId: 'removeOrganizationMember',
  method: 'delete',
  path: `${path}/user/{userId}`,
  tags,
  summary: 'Remove a person from the organization',
  description:
    'Removes the person from every team and ends their sign-ins at once. API tokens and upload passes they created keep working until canceled. 400 when they are the last member.',
  access: { creds: 'session', permissions: ['org:remove_user'] },
  errors: [404],
  request: { params: OrgUserParams },
  responses: { 204: { description: 'Removed.' } },
});

export const invite = defineRoute({
  operationId: 'inviteToOrganization',
  method: 'post',
  path: `${path}/invite`,
  tags,
  summary: 'Invite a person',
  description:
    'Sends an invitation email. A new person joins in the given teams; an existing member is added to the given teams they are not yet in (`status: already_exists`); a former member comes back into their former teams and `teamIds` is not applied.',
  access: { creds: 'session', permissions: ['org:invite_user'] },
  errors: [404],
  request: { params: OrgParams, ...jsonBody(InviteRequest) },
  responses: { 200: { description: 'The invitation result.', ...json(InviteResult) } },
});

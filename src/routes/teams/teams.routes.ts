import { defineRoute } from '../../lib/openapi';
import { json, jsonBody, OrgParams } from '../../lib/schemas';
import type { Access } from '../../middleware/auth';
import {
  AddMemberRequest, CreateTeamRequest, ProjectIdsRequest, RoleIdsRequest, Team, TeamList, TeamMember, TeamMemberList,
  TeamParams, TeamProjectParams, TeamUserParams, UpdateTeamRequest, UserParams,
} from './teams.schemas';

const tags = ['Teams'];
const access: Access = { creds: 'any', permissions: ['org:manage_teams'] };
const team = { description: 'The team.', ...json(Team) };

export const listTeams = defineRoute({
  operationId: 'listTeams',
  method: 'get', path: '/api/v1/org/{orgId}/team', tags, summary: 'List teams', access,
  request: { params: OrgParams },
  responses: { 200: { description: 'Built-in teams first, then by name.', ...json(TeamList) } },
});

export const createTeam = defineRoute({
  operationId: 'createTeam',
  method: 'post', path: '/api/v1/org/{orgId}/team', tags, summary: 'Create a team', access,
  description: '400 when the name is blank or taken (`name_taken`), both `allProjects` and `projectIds` are given, or a role or project does not exist in the organization.',
  request: { params: OrgParams, ...jsonBody(CreateTeamRequest) },
  responses: { 201: team },
});

export const getTeam = defineRoute({
  operationId: 'getTeam',
  method: 'get', path: '/api/v1/org/{orgId}/team/{teamId}', tags, summary: 'Get a team', access, errors: [404],
  request: { params: TeamParams },
  responses: { 200: team },
});

export const updateTeam = defineRoute({
  operationId: 'updateTeam',
  method: 'put', path: '/api/v1/org/{orgId}/team/{teamId}', tags, summary: 'Change a team', access, errors: [404],
  description: 'Fields left out are unchanged. Turning `allProjects` on drops individual project assignments. 400 when the team is built in or the new name is taken.',
  request: { params: TeamParams, ...jsonBody(UpdateTeamRequest) },
  responses: { 200: team },
});

export const deleteTeam = defineRoute({
  operationId: 'deleteTeam',
  method: 'delete', path: '/api/v1/org/{orgId}/team/{teamId}', tags, summary: 'Delete a team', access, errors: [404],
  description: 'Memberships, role and project assignments go with it at once; the people stay in the organization. 400 when the team is built in.',
  request: { params: TeamParams },
  responses: { 204: { description: 'Deleted.' } },
});

export const addTeamProjects = defineRoute({
  operationId: 'addTeamProjects',
  method: 'post', path: '/api/v1/org/{orgId}/team/{teamId}/project', tags, summary: 'Add projects to a team', access, errors: [404],
  description: 'Projects already assigned are skipped. 400 when the team reaches all projects or a project does not exist in the organization.',
  request: { params: TeamParams, ...jsonBody(ProjectIdsRequest) },
  responses: { 200: team },
});

export const replaceTeamProjects = defineRoute({
  operationId: 'replaceTeamProjects',
  method: 'put', path: '/api/v1/org/{orgId}/team/{teamId}/project', tags, summary: 'Replace a team\'s projects', access, errors: [404],
  description: 'Projects not listed are removed; an empty list leaves none. 400 as for adding projects.',
  request: { params: TeamParams, ...jsonBody(ProjectIdsRequest) },
  responses: { 200: team },
});

export const removeTeamProject = defineRoute({
  operationId: 'removeTeamProject',
  method: 'delete', path: '/api/v1/org/{orgId}/team/{teamId}/project/{projectId}', tags, summary: 'Remove a project from a team', errors: [404],
  description: '400 when the team reaches all projects or the project is not assigned. 403 for an API token made for another project. 404 when the team or the project does not exist.',
  // A session may name any project of its organization; an API token only its own (403). The
  // middleware leaves the permission check of `reachable` routes to the handler.
  access: { ...access, project: 'reachable' },
  request: { params: TeamProjectParams },
  responses: { 204: { description: 'Removed.' } },
});

export const addTeamRoles = defineRoute({
  operationId: 'addTeamRoles',
  method: 'post', path: '/api/v1/org/{orgId}/team/{teamId}/role', tags, summary: 'Add roles to a team', access, errors: [404],
  description: 'Roles already held are skipped. 400 when the team is built in or a role is not available to the organization.',
  request: { params: TeamParams, ...jsonBody(RoleIdsRequest) },
  responses: { 200: team },
});

export const replaceTeamRoles = defineRoute({
  operationId: 'replaceTeamRoles',
  method: 'put', path: '/api/v1/org/{orgId}/team/{teamId}/role', tags, summary: 'Replace a team\'s roles', access, errors: [404],
  description: 'Roles not listed are removed; an empty list leaves none. 400 as for adding roles.',
  request: { params: TeamParams, ...jsonBody(RoleIdsRequest) },
  responses: { 200: team },
});

export const listTeamMembers = defineRoute({
  operationId: 'listTeamMembers',
  method: 'get', path: '/api/v1/org/{orgId}/team/{teamId}/user', tags, summary: 'List a team\'s members', access, errors: [404],
  request: { params: TeamParams },
  responses: { 200: { description: 'The members, by name.', ...json(TeamMemberList) } },
});

export const addTeamMember = defineRoute({
  operationId: 'addTeamMember',
  method: 'post', path: '/api/v1/org/{orgId}/team/{teamId}/user', tags, summary: 'Add a member to a team', access, errors: [404],
  description: 'The person must already belong to the organization (404 otherwise). 400 when they are already on the team. Recorded in the activity log.',
  request: { params: TeamParams, ...jsonBody(AddMemberRequest) },
  responses: { 201: { description: 'The member added.', ...json(TeamMember) } },
});

export const removeTeamMember = defineRoute({
  operationId: 'removeTeamMember',
  method: 'delete', path: '/api/v1/org/{orgId}/team/{teamId}/user/{userId}', tags, summary: 'Remove a member from a team', access, errors: [404],
  description: 'The person stays in the organization and on their other teams. 400 when they are not on the team. Recorded in the activity log.',
  request: { params: TeamUserParams },
  responses: { 204: { description: 'Removed.' } },
});

export const listUserTeams = defineRoute({
  operationId: 'listUserTeams',
  method: 'get', path: '/api/v1/org/{orgId}/user/{userId}/team', tags, summary: 'A person\'s teams', access, errors: [404],
  description: '404 when no such person is a member of the organization.',
  request: { params: UserParams },
  responses: { 200: { description: 'The person\'s teams, as in the team list.', ...json(TeamList) } },
});

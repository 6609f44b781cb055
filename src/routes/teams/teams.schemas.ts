import { z } from '@hono/zod-openapi';
import { TEAM_NAME_MAX } from '../../control/teams';
import { UUID_PATTERN } from '../../lib/ids';
import { uuidParam } from '../../lib/schemas';
import { Role } from '../roles/roles.schemas';

export const TeamParams = z.object({ orgId: uuidParam('orgId'), teamId: uuidParam('teamId') });
export const TeamProjectParams = TeamParams.extend({ projectId: uuidParam('projectId') });
export const TeamUserParams = TeamParams.extend({ userId: uuidParam('userId') });
export const UserParams = z.object({ orgId: uuidParam('orgId'), userId: uuidParam('userId') });

const MAX_IDS = 1000;
const ids = (what: string) =>
  z.array(z.uuid({ error: `every ${what} id must be a UUID.` })).max(MAX_IDS)
    .openapi({ example: ['3f1c2a9e-6b1d-4c1e-9a51-2f7c0c6b8e10'] });

const TeamName = z.string().trim().min(1, 'name must not be blank.').max(TEAM_NAME_MAX)
  .openapi({ description: 'Unique in the organization (compared without case).', example: 'Platform security' });

export const TeamMember = z
  .object({ id: z.uuid(), email: z.string().openapi({ example: 'alice@example.com' }), name: z.string().openapi({ example: 'Alice' }) })
  .openapi('TeamMember');

export const TeamMemberList = z.object({ members: z.array(TeamMember) }).openapi('TeamMemberList');

const teamFields = {
  id: z.uuid(),
  name: z.string().openapi({ example: 'Platform security' }),
  allProjects: z.boolean().openapi({ description: 'Whether the team reaches every project of the organization.' }),
  memberCount: z.number().int(),
  projectCount: z.number().int().optional().openapi({ description: 'Projects assigned; absent when the team reaches all projects.' }),
};

export const TeamSummary = z
  .object({ ...teamFields, roles: z.array(z.string()).openapi({ description: 'Names of the roles the team grants.', example: ['Member'] }) })
  .openapi('TeamSummary');

export const TeamList = z.object({ teams: z.array(TeamSummary) }).openapi('TeamList');

export const Team = z
  .object({
    ...teamFields,
    builtIn: z.boolean().openapi({ description: 'Built-in teams (Administrators, Members) cannot be renamed, deleted, nor have their roles changed.' }),
    members: z.array(TeamMember),
    projects: z.array(z.object({ id: z.uuid(), name: z.string() })).openapi({ description: 'The active projects the team reaches (every one when `allProjects`).' }),
    roles: z.array(Role),
  })
  .openapi('Team');

export const CreateTeamRequest = z
  .object({
    name: TeamName,
    allProjects: z.boolean().optional().openapi({ description: 'False when left out. Not together with `projectIds`.' }),
    projectIds: ids('project').optional().openapi({ description: 'Active projects of the organization.' }),
    roleIds: ids('role').optional().openapi({ description: 'Built-in roles or the organization\'s own.' }),
  })
  .openapi('CreateTeamRequest');

export const UpdateTeamRequest = z
  .object({
    name: TeamName.optional(),
    allProjects: z.boolean().optional().openapi({ description: 'Turning it on drops individual project assignments.' }),
  })
  .openapi('UpdateTeamRequest');

export const ProjectIdsRequest = z.object({ projectIds: ids('project') }).openapi('TeamProjectsRequest');
export const RoleIdsRequest = z.object({ roleIds: ids('role') }).openapi('TeamRolesRequest');
export const AddMemberRequest = z
  .object({ userId: z.string().trim().min(1, 'userId must not be blank.').regex(UUID_PATTERN, 'userId must be a UUID.').openapi({ format: 'uuid', example: '3f1c2a9e-6b1d-4c1e-9a51-2f7c0c6b8e10' }) })
  .openapi('AddTeamMemberRequest');

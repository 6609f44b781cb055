import { z } from '@hono/zod-openapi';
import { uuidParam } from '../../lib/schemas';

const ORG_ID = '3f1c2a9e-6b1d-4c1e-9a51-2f7c0c6b8e10';
const USER_ID = '7b2d4f10-1c3e-4a5b-8c6d-9e0f1a2b3c4d';
const TEAM_ID = '5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d';

export const OrgUserParams = z.object({ orgId: uuidParam('orgId'), userId: uuidParam('userId') });

export const Organization = z
  .object({
    id: z.uuid().openapi({ example: ORG_ID }),
    name: z.string().openapi({ example: 'Acme Security' }),
    slug: z.string().openapi({ example: 'acme-security-3f1c2a9e' }),
    retentionDays: z.number().int().openapi({ description: 'Days a deleted project stays restorable (1 to 365).', example: 90 }),
  })
  .openapi('Organization');

export const OrganizationUpdate = z
  .object({
    name: z.string().trim().min(1, 'name must not be blank.').max(255, 'name is at most 255 characters.').optional().openapi({ example: 'Acme Security' }),
    retentionDays: z.number().int().min(1).max(365).optional().openapi({ example: 30 }),
  })
  .openapi('OrganizationUpdate');

export const Member = z
  .object({
    id: z.uuid().openapi({ example: USER_ID }),
    email: z.string().openapi({ example: 'bob@example.com' }),
    name: z.string().openapi({ example: 'Bob' }),
  })
  .openapi('Member');

export const MemberList = z.object({ users: z.array(Member) }).openapi('MemberList');

export const InviteRequest = z
  .object({
    email: z.email().max(320).openapi({ example: 'carol@example.com' }),
    teamIds: z.array(z.uuid()).min(1, 'teamIds needs at least one team.').max(100).openapi({ example: [TEAM_ID] }),
    projectUuid: z.uuid().optional().openapi({ description: 'The project the invitation points at; the session\'s project when omitted.' }),
  })
  .openapi('InviteRequest');

export const InviteResult = z
  .object({
    ok: z.literal(true),
    message: z.string().openapi({ example: 'carol@example.com was invited to Acme Security.' }),
    status: z.literal('already_exists').optional().openapi({ description: 'Present when the person already was an active member.' }),
    userId: z.uuid().openapi({ description: 'The person invited.', example: USER_ID }),
    emailSent: z.boolean().openapi({ description: 'Whether the invitation email went out; the membership change stands either way.' }),
  })
  .openapi('InviteResult');

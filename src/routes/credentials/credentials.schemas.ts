import { z } from '@hono/zod-openapi';
import { API_TOKEN_DAYS, UPLOAD_PASS_DAYS } from '../../auth/credentials';
import { ProjectParams, uuidParam } from '../../lib/schemas';

const timestamp = (example: string) => z.string().openapi({ example });

export const Credential = z
  .object({
    jti: z.uuid().openapi({ description: 'The credential id: pass it to the cancel operation.' }),
    kind: z.enum(['api_token', 'upload_pass', 'sign_in', 'connected_app']).openapi({ description: 'API token, upload pass, a dashboard sign-in with a session on this project, or a connected app: an AI assistant approved by a person who reaches this project (listed under Connected apps; canceling it disconnects the assistant in every project and cancels what it created).' }),
    name: z.string().nullable().openapi({ description: 'A label; for a connected app, the name its client registered (self-asserted).' }),
    permissions: z.array(z.string()).nullable().openapi({ description: 'The fixed permission list of an API token; null for other kinds.', example: ['project:view'] }),
    scopes: z.array(z.string()).nullable().openapi({ description: 'What the person allowed a connected app: `docs:read`, `project:read`, `project:write`, `credentials:create`; null for other kinds.', example: ['docs:read', 'project:read'] }),
    parentJti: z.uuid().nullable().openapi({ description: 'The connected app that created this API token or upload pass; null otherwise.' }),
    createdAt: timestamp('2026-11-21T10:00:00.000Z'),
    expiresAt: timestamp('2026-12-05T10:00:00.000Z'),
    revokedAt: z.string().nullable().openapi({ description: 'When it was canceled; null while it is not.' }),
    lastUsedAt: z.string().nullable().openapi({ description: 'Its latest use (for a sign-in, the latest use of any of its sessions), recorded at most once a minute.' }),
    createdBy: z.object({ id: z.uuid(), email: z.string() }).openapi({ description: 'The person who created it (for a sign-in, who signed in).' }),
  })
  .openapi('Credential');

export const CredentialList = z.array(Credential).openapi('CredentialList');

export const CredentialPathParams = ProjectParams.extend({ jti: uuidParam('jti') });

const permissionName = z.string().min(1).max(100).openapi({ example: 'project:view' });

export const CreateApiTokenRequest = z
  .object({
    permissions: z
      .array(permissionName)
      .min(1, 'permissions must name at least one permission.')
      .max(100)
      .openapi({ description: 'The permissions the token holds: at most those the creator holds on this project (`org:*` ones on the organization). GET /api/v1/permission lists them.', example: ['project:view', 'project:portfolio:view'] }),
    name: z.string().trim().max(255).optional().openapi({ description: 'A label for people.', example: 'CI pipeline' }),
    duration_days: z
      .number()
      .int()
      .min(API_TOKEN_DAYS.min)
      .max(API_TOKEN_DAYS.max)
      .default(API_TOKEN_DAYS.default)
      .openapi({ description: `Days until it expires, ${API_TOKEN_DAYS.min} to ${API_TOKEN_DAYS.max}.`, example: 14 }),
  })
  .openapi('CreateApiTokenRequest');

export const CreateUploadPassRequest = z
  .object({
    name: z.string().trim().max(255).optional().openapi({ description: 'A label for people.', example: 'build server' }),
    duration_days: z
      .number()
      .int()
      .min(UPLOAD_PASS_DAYS.min)
      .max(UPLOAD_PASS_DAYS.max)
      .default(UPLOAD_PASS_DAYS.default)
      .openapi({ description: `Days until it expires, ${UPLOAD_PASS_DAYS.min} to ${UPLOAD_PASS_DAYS.max}.`, example: 14 }),
  })
  .openapi('CreateUploadPassRequest');

export const CreatedApiToken = Credential.extend({
  bearer_token: z.string().openapi({ description: 'The token, returned this once: send it as `Authorization: Bearer <token>`.' }),
}).openapi('CreatedApiToken');

export const CreatedUploadPass = Credential.extend({
  jwt: z.string().openapi({ description: 'The upload pass, returned this once: give it to the command-line client.' }),
}).openapi('CreatedUploadPass');

import { defineRoute } from '../../lib/openapi';
import type { Access } from '../../middleware/auth';
import { json, jsonBody, ProjectParams } from '../../lib/schemas';
import {
  CreateApiTokenRequest, CreatedApiToken, CreatedUploadPass, CreateUploadPassRequest, CredentialList, CredentialPathParams,
} from './credentials.schemas';

const P = '/api/v1/project/{projectId}';
// Session only, requires E (spec 4.11); an API token answers 401 session_required, a pass 401 unauthorized.
const access: Access = { creds: 'session', permissions: ['project:edit'] };

export const listCredentials = defineRoute({
  operationId: 'listCredentials',
  method: 'get',
  path: `${P}/credential`,
  tags: ['Credentials'],
  summary: 'List the project\'s credentials',
  description: 'API tokens and upload passes of the project, and the dashboard sign-ins with a session on it, newest first, canceled and expired ones included. Secrets are never returned.',
  access,
  request: { params: ProjectParams },
  responses: { 200: { description: 'The credentials.', ...json(CredentialList) } },
});

export const revokeCredential = defineRoute({
  operationId: 'revokeCredential',
  method: 'delete',
  path: `${P}/credential/{jti}`,
  tags: ['Credentials'],
  summary: 'Cancel a credential',
  description: 'Cancels the credential at once: it is refused from its next request (`token_revoked`) and cannot be restored. Canceling a sign-in ends its sessions on every project. Canceling one already canceled changes nothing.',
  access,
  errors: [404],
  request: { params: CredentialPathParams },
  responses: { 204: { description: 'Canceled.' } },
});

export const createApiToken = defineRoute({
  operationId: 'createApiToken',
  method: 'post',
  path: `${P}/credential/api-token`,
  tags: ['Credentials'],
  summary: 'Create an API token',
  description: 'An API token acting in this project and its organization with a fixed list of permissions, at most those the creator holds. The secret is returned once, in `bearer_token`.',
  access,
  request: { params: ProjectParams, ...jsonBody(CreateApiTokenRequest) },
  responses: { 201: { description: 'The token.', ...json(CreatedApiToken) } },
});

export const createUploadPass = defineRoute({
  operationId: 'createUploadPass',
  method: 'post',
  path: `${P}/credential/spice-pass`,
  tags: ['Credentials'],
  summary: 'Create an upload pass',
  description: 'An upload pass of the command-line client, reaching only this project. The pass is returned once, in `jwt`; it is listed and cancelable with the project\'s credentials.',
  access,
  request: { params: ProjectParams, ...jsonBody(CreateUploadPassRequest, false) },
  responses: { 201: { description: 'The pass.', ...json(CreatedUploadPass) } },
});

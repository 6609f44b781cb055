import { defineRoute } from '../../lib/openapi';
import { json, jsonBody } from '../../lib/schemas';
import { MyOrganizations, Preferences, PreferencesPatch, Profile, UpdateProfile } from './users.schemas';

const tags = ['Users'];

export const getProfile = defineRoute({
  operationId: 'getProfile',
  method: 'get',
  path: '/api/v1/user',
  tags,
  summary: 'My profile',
  access: { creds: 'session' },
  responses: { 200: { description: 'The profile.', ...json(Profile) } },
});

export const updateProfile = defineRoute({
  operationId: 'updateProfile',
  method: 'put',
  path: '/api/v1/user',
  tags,
  summary: 'Change my name',
  description: 'The email cannot be changed: an `email` other than the current one answers 400.',
  access: { creds: 'session' },
  request: jsonBody(UpdateProfile),
  responses: { 200: { description: 'The profile after the change.', ...json(Profile) } },
});

export const getPreferences = defineRoute({
  operationId: 'getPreferences',
  method: 'get',
  path: '/api/v1/user/preference',
  tags,
  summary: 'My preferences',
  description: 'A preference never set is left out.',
  access: { creds: 'session' },
  responses: { 200: { description: 'The preferences.', ...json(Preferences) } },
});

export const updatePreferences = defineRoute({
  operationId: 'updatePreferences',
  method: 'patch',
  path: '/api/v1/user/preference',
  tags,
  summary: 'Change my preferences',
  description: 'A field left out is unchanged; null clears it. `timezone` must be an IANA zone name; `last_context` must name an organization you belong to and an active project in it you reach.',
  access: { creds: 'session' },
  request: jsonBody(PreferencesPatch),
  responses: { 200: { description: 'The preferences after the change.', ...json(Preferences) } },
});

export const myOrganizations = defineRoute({
  operationId: 'listMyOrganizations',
  method: 'get',
  path: '/api/v1/user/organization',
  tags,
  summary: 'My organizations',
  description: 'The organizations you are an active member of, oldest membership first; `current` marks this session\'s. Switch with `POST /api/v1/org/{orgId}/session` (an addition to the specification).',
  access: { creds: 'session' },
  responses: { 200: { description: 'The organizations.', ...json(MyOrganizations) } },
});

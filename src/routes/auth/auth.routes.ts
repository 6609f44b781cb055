import { defineRoute } from '../../lib/openapi';
import { ExchangeRequest, OrgIdParam, ProjectIdParam, SessionAnswer, SignInAccepted, SignInRequest } from './auth.schemas';

const json = <T>(schema: T) => ({ content: { 'application/json': { schema } } });

export const signIn = defineRoute({
  operationId: 'signIn',
  method: 'post',
  path: '/api/v1/auth/sign-in',
  tags: ['Sign-in'],
  summary: 'Send a sign-in link by email',
  description:
    'Sends a one-time sign-in link (valid 15 minutes) to the address. The answer is the same whether or not the address is known. The first sign-in of an address no organization knows creates the person, an organization of their own and a first project (when sign-up is open). At most 5 unused links wait for one address at a time: beyond that the answer is the same but nothing is sent. Each client address may make 60 requests a minute to the routes that need no credential (sign-in, its exchange, OAuth registration and token, the authorize pages); beyond that 429 `rate_limited` with `Retry-After`.',
  access: 'public',
  errors: [429],
  request: { body: { required: true, ...json(SignInRequest) } },
  responses: { 202: { description: 'The link is on its way when the address may sign in.', ...json(SignInAccepted) } },
});

export const exchange = defineRoute({
  operationId: 'exchangeSignInLink',
  method: 'post',
  path: '/api/v1/auth/sign-in/exchange',
  tags: ['Sign-in'],
  summary: 'Exchange a sign-in link for a session',
  description: 'Consumes the link (once) and opens a sign-in with a first dashboard session, in the organization and project last used when still reachable. Counts against the 60 requests a minute of the client address (see signIn).',
  access: 'public',
  errors: [401, 429],
  request: { body: { required: true, ...json(ExchangeRequest) } },
  responses: { 200: { description: 'A session.', ...json(SessionAnswer) } },
});

export const switchSession = defineRoute({
  operationId: 'switchSession',
  method: 'post',
  path: '/api/v1/project/{projectId}/session',
  tags: ['Sign-in'],
  summary: 'Switch the session to another project',
  description: 'Issues a session for another project of the same organization that the person reaches, under the same sign-in (an addition to the specification).',
  access: { creds: 'session', project: 'reachable' },
  errors: [404],
  request: { params: ProjectIdParam },
  responses: { 200: { description: 'A session for that project.', ...json(SessionAnswer) } },
});

export const switchOrganization = defineRoute({
  operationId: 'switchOrganization',
  method: 'post',
  path: '/api/v1/org/{orgId}/session',
  tags: ['Sign-in'],
  summary: 'Switch the session to another organization',
  description:
    'Issues a session in another organization the person is an active member of, under the same sign-in (no new email link), in the project they used last there when they still reach it, else the first they reach (or none). 404 for an organization they do not belong to (an addition to the specification).',
  access: { creds: 'session', org: 'member' },
  errors: [404],
  request: { params: OrgIdParam },
  responses: { 200: { description: 'A session in that organization.', ...json(SessionAnswer) } },
});

export const signOut = defineRoute({
  operationId: 'signOut',
  method: 'delete',
  path: '/api/v1/auth/session',
  tags: ['Sign-in'],
  summary: 'Sign out',
  description: 'Ends the sign-in behind this session, on every project and organization.',
  access: { creds: 'session' },
  responses: { 204: { description: 'Signed out.' } },
});

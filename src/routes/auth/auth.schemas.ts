import { z } from '@hono/zod-openapi';

export const SignInRequest = z
  .object({ email: z.email().max(320).openapi({ example: 'alice@example.com' }) })
  .openapi('SignInRequest');

export const SignInAccepted = z
  .object({ ok: z.literal(true), message: z.string() })
  .openapi('SignInAccepted');

export const ExchangeRequest = z
  .object({ token: z.string().min(1).openapi({ description: 'The token of the emailed link.' }) })
  .openapi('SignInExchangeRequest');

export const SessionAnswer = z
  .object({
    jwt: z.string().openapi({ description: 'The dashboard session token.' }),
    expiresAt: z.string().openapi({ example: '2026-11-28T10:00:00.000Z' }),
    orgId: z.uuid(),
    projectId: z.uuid().nullable().openapi({ description: 'The project the session is scoped to; null when the person reaches none.' }),
    user: z.object({ id: z.uuid(), email: z.string(), name: z.string() }),
  })
  .openapi('Session');

export { OrgParams as OrgIdParam, ProjectParams as ProjectIdParam } from '../../lib/schemas';

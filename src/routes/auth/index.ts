import { eq } from 'drizzle-orm';
import { bumpAccessEpoch } from '../../auth/access-cache';
import { exchangeSignInLink, requestSignIn, switchSession } from '../../auth/sign-in';
import { controlDb } from '../../control/db';
import { credentials } from '../../control/schema';
import { nowIso } from '../../lib/ids';
import { createRouter } from '../../lib/router';
import { checkRateLimit } from '../../middleware/rate-limit';
import { normalizeEmail } from '../../control/tenancy';
import * as routes from './auth.routes';

export const authRouter = createRouter()
  .openapi(routes.signIn, async (c) => {
    const { email } = c.req.valid('json');
    await checkRateLimit(c.env, `sign-in:${normalizeEmail(email)}`);
    await requestSignIn(controlDb(c.env.DB), c.env, email);
    return c.json({ ok: true as const, message: 'If this address may sign in, a link is on its way.' }, 202);
  })
  .openapi(routes.exchange, async (c) => {
    const { token } = c.req.valid('json');
    const session = await exchangeSignInLink(controlDb(c.env.DB), c.env, token, c.var.requestId);
    await bumpAccessEpoch(c.env, session.orgId); // its activity entry is new
    return c.json(session, 200);
  })
  .openapi(routes.switchSession, async (c) => {
    const principal = c.var.principal;
    const { projectId } = c.req.valid('param');
    const answer = await switchSession(controlDb(c.env.DB), c.env, { signInJti: principal.signInJti!, userId: principal.userId, orgId: principal.orgId, projectId });
    return c.json(answer, 200);
  })
  .openapi(routes.signOut, async (c) => {
    await controlDb(c.env.DB).update(credentials).set({ revokedAt: nowIso() }).where(eq(credentials.jti, c.var.principal.signInJti!));
    return c.body(null, 204);
  });

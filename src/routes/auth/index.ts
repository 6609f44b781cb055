import type { Context } from 'hono';
import { bumpAccessEpoch } from '../../auth/access-cache';
import { signOut } from '../../auth/sign-out';
import { exchangeSignInLink, requestSignIn, switchOrganization, switchSession, type SwitchFrom } from '../../auth/sign-in';
import { controlDb } from '../../control/db';
import { createRouter } from '../../lib/router';
import type { AppEnv } from '../../lib/context';
import * as routes from './auth.routes';

const switchFrom = (c: Context<AppEnv>): SwitchFrom => {
  const { signInJti, userId, orgId, projectId } = c.var.principal;
  return { signInJti: signInJti!, userId, orgId, projectId, traceId: c.var.requestId };
};

export const authRouter = createRouter()
  .openapi(routes.signIn, async (c) => {
    const { email } = c.req.valid('json');
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
    const { projectId } = c.req.valid('param');
    return c.json(await switchSession(controlDb(c.env.DB), c.env, switchFrom(c), projectId), 200);
  })
  .openapi(routes.switchOrganization, async (c) => {
    const { orgId } = c.req.valid('param');
    const answer = await switchOrganization(controlDb(c.env.DB), c.env, switchFrom(c), orgId);
    await bumpAccessEpoch(c.env, answer.orgId); // its session.switched entry is new there
    return c.json(answer, 200);
  })
  .openapi(routes.signOut, async (c) => {
    const orgIds = await signOut(controlDb(c.env.DB), c.var.principal, c.var.requestId);
    // Its sessions may live in several organizations: each one's cached credentials must go.
    await Promise.all(orgIds.map((orgId) => bumpAccessEpoch(c.env, orgId)));
    return c.body(null, 204);
  });

// Credentials (spec 4.11): list, cancel, and create API tokens and upload passes for a project.
import { principalPermissions } from '../../auth/access';
import { issueApiToken, issueUploadPass, UPLOAD_PASS_DAYS } from '../../auth/credentials';
import { bumpAccessEpoch } from '../../auth/access-cache';
import { grantablePermissions, issuedRecord, listProjectCredentials, revokeProjectCredential, signInOrgIds } from '../../control/credentials';
import { controlDb } from '../../control/db';
import { createRouter } from '../../lib/router';
import { revokeGrants } from '../../mcp/oauth';
import { primaryDb } from '../../middleware/read-session';
import * as routes from './credentials.routes';

export const credentialsRouter = createRouter()
  .openapi(routes.listCredentials, async (c) => {
    const { projectId } = c.req.valid('param');
    return c.json(await listProjectCredentials(c.env.DB, c.var.principal.orgId, projectId), 200);
  })
  .openapi(routes.revokeCredential, async (c) => {
    const { projectId, jti } = c.req.valid('param');
    const principal = c.var.principal;
    const revoked = await revokeProjectCredential(controlDb(c.env.DB), { orgId: principal.orgId, projectId, jti, actor: principal, traceId: c.var.requestId });
    // A connected app's OAuth grant goes too, so its refresh token stops (its calls already fail).
    if (revoked?.kind === 'connected_app') await revokeGrants(c.env, [jti]);
    // A sign-in's sessions may live in other organizations too: their cached credentials must go now.
    const elsewhere = (await signInOrgIds(c.env.DB, jti)).filter((orgId) => orgId !== principal.orgId);
    await Promise.all(elsewhere.map((orgId) => bumpAccessEpoch(c.env, orgId)));
    return c.body(null, 204);
  })
  .openapi(routes.createApiToken, async (c) => {
    const { projectId } = c.req.valid('param');
    const body = c.req.valid('json');
    const principal = c.var.principal;
    const permissions = grantablePermissions(body.permissions, await principalPermissions(primaryDb(c), principal, projectId, c.var.access));
    const db = controlDb(c.env.DB);
    const issued = await issueApiToken(db, c.env, {
      orgId: principal.orgId, projectId, actor: principal, durationDays: body.duration_days, name: body.name || null, permissions, traceId: c.var.requestId,
    });
    return c.json({ ...(await issuedRecord(db, issued)), bearer_token: issued.token }, 201);
  })
  .openapi(routes.createUploadPass, async (c) => {
    const { projectId } = c.req.valid('param');
    // Without a JSON body the validator is skipped, so the default is applied here too.
    const body = c.req.valid('json');
    const principal = c.var.principal;
    const db = controlDb(c.env.DB);
    const issued = await issueUploadPass(db, c.env, {
      orgId: principal.orgId, projectId, actor: principal, durationDays: body.duration_days ?? UPLOAD_PASS_DAYS.default, name: body.name || null, traceId: c.var.requestId,
    });
    return c.json({ ...(await issuedRecord(db, issued)), jwt: issued.token }, 201);
  });

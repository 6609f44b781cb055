// Credentials: list what exists, and create an API token (one hour) or an upload pass (48 hours) with
// at most the person's own permissions, and never more than the assistant's scopes let through. Like
// the HTTP operations, they need the person to hold project:edit on the project.
import { z } from 'zod';
import { issueApiToken, issueUploadPass } from '../../auth/credentials';
import { principalPermissions } from '../../auth/access';
import { grantablePermissions, issuedRecord, listProjectCredentials } from '../../control/credentials';
import { controlDb } from '../../control/db';
import { onProject, type ToolContext } from '../context';
import { ASSISTANT_PASS_HOURS, ASSISTANT_TOKEN_HOURS } from '../../auth/scopes';
import type { ToolRegistry } from './registry';
import { projectId } from './common';

const name = z.string().trim().max(255).optional().describe('A label for people, e.g. "CI upload for payments".');

/** What the assistant creates is made by its person, under the app (canceling the app cancels it). */
const issuedBy = (context: ToolContext, project: string) => ({
  orgId: context.app.orgId, projectId: project, actor: context.app, parentJti: context.app.jti, traceId: context.requestId,
});

export function registerCredentialTools({ tool }: ToolRegistry): void {
  tool('listCredentials', {
    title: 'List a project\'s credentials',
    description: 'API tokens, upload passes, sign-ins and connected apps of a project, newest first, canceled and expired ones included; secrets are never shown.',
    input: z.object({ projectId }), scope: 'credentials:create', readOnly: true,
  }, async ({ projectId: project }, context) => {
    await onProject(context, project, ['project:edit'], { personOnly: true });
    return listProjectCredentials(context.env.DB, context.app.orgId, project);
  });

  tool('createApiToken', {
    title: 'Create an API token (one hour)',
    description: `An API token for this project lasting ${ASSISTANT_TOKEN_HOURS} hour, holding the permissions asked for: at most those the person holds and the assistant was allowed (reading needs project:read, changes project:write). The secret is in bearer_token, shown once.`,
    input: z.object({ projectId, permissions: z.array(z.string().min(1).max(100)).min(1).max(100).describe('e.g. ["project:view"]'), name }),
    scope: 'credentials:create', readOnly: false,
  }, async ({ projectId: project, permissions, name: label }, context) => {
    const principal = await onProject(context, project, ['project:edit'], { personOnly: true });
    const held = await principalPermissions(context.env.DB, principal, project);
    const granted = grantablePermissions(permissions, held);
    const db = controlDb(context.env.DB);
    const issued = await issueApiToken(db, context.env, { ...issuedBy(context, project), durationHours: ASSISTANT_TOKEN_HOURS, name: label || null, permissions: granted });
    return { ...(await issuedRecord(db, issued)), bearer_token: issued.token };
  });

  tool('createUploadPass', {
    title: 'Create an upload pass (48 hours)',
    description: `An upload pass for the command-line client on this project, lasting ${ASSISTANT_PASS_HOURS} hours. The pass is in jwt, shown once.`,
    input: z.object({ projectId, name }), scope: 'credentials:create', readOnly: false,
  }, async ({ projectId: project, name: label }, context) => {
    await onProject(context, project, ['project:edit'], { personOnly: true });
    const db = controlDb(context.env.DB);
    const issued = await issueUploadPass(db, context.env, { ...issuedBy(context, project), durationHours: ASSISTANT_PASS_HOURS, name: label || null });
    return { ...(await issuedRecord(db, issued)), jwt: issued.token };
  });
}

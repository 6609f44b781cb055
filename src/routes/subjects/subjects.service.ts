// Rating a subject's criticality, shared by the HTTP handler and the MCP tool: the rating names its
// person as rater, rescores every portfolio holding the subject, and is recorded as `subject.rated`.
import type { Principal } from '../../auth/principal';
import { recordActivity } from '../../control/activity';
import { controlDb } from '../../control/db';
import { getProfile } from '../../control/users';
import type { Env } from '../../env';
import type { JsonObject } from '../../lib/json';
import { withPortfolioData } from '../../project/client';

export async function rateSubject(
  env: Env,
  principal: Principal,
  input: { projectId: string; subject: string; value: 'high' | 'medium' | 'low' | 'unclassified'; rationale: string | null; traceId: string },
): Promise<JsonObject> {
  const db = controlDb(env.DB);
  const profile = await getProfile(db, principal.userId);
  const rating = await withPortfolioData<JsonObject>(env, input.projectId, (stub) =>
    stub.rateSubject({ subject: input.subject, value: input.value, rationale: input.rationale, rater: { id: profile.id, email: profile.email } }));
  await recordActivity(db, {
    orgId: principal.orgId, projectId: input.projectId, actor: principal, action: 'subject.rated',
    data: { subject: input.subject, value: input.value, priorValue: rating.prior_value as string }, traceId: input.traceId,
  });
  return rating;
}

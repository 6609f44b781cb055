// Deciding about findings, shared by the HTTP handlers and the MCP tools: the project object keeps the
// versions, and each change (not its repeats) leaves a `finding.decided` activity entry.
import { recordChange, type Changer } from '../../control/changes';
import { controlDb } from '../../control/db';
import { getProfile } from '../../control/users';
import type { Env } from '../../env';
import type { JsonObject } from '../../lib/json';
import { withProject } from '../../project/client';
import type { DecisionChange } from '../../project/decisions';
import type { Assessment, FindingScope } from '../../triage/decision';

/** The person deciding, as the decision names them. */
export async function deciderOf(env: Env, by: Changer): Promise<JsonObject> {
  const profile = await getProfile(controlDb(env.DB), by.principal.userId);
  return { id: profile.id, email: profile.email, kind: by.principal.kind };
}

async function recorded(env: Env, by: Changer, change: DecisionChange): Promise<JsonObject> {
  if (!change.replayed) {
    const d = change.answer;
    await recordChange(env, by, 'finding.decided', { decisionId: d.id as string, version: d.version as number, state: d.state as string, finding: d.finding as JsonObject });
  }
  return change.answer;
}

export async function createDecision(env: Env, by: Changer, input: { finding: FindingScope; assessment: Assessment; idempotencyKey?: string }): Promise<JsonObject> {
  const decidedBy = await deciderOf(env, by);
  return recorded(env, by, await withProject<DecisionChange>(env, by.projectId, (stub) => stub.createDecision({ ...input, decidedBy })));
}

export async function updateDecision(env: Env, by: Changer, input: { id: string; assessment: Assessment; idempotencyKey?: string }): Promise<JsonObject> {
  const decidedBy = await deciderOf(env, by);
  return recorded(env, by, await withProject<DecisionChange>(env, by.projectId, (stub) => stub.updateDecision({ ...input, decidedBy })));
}

export async function withdrawDecision(env: Env, by: Changer, id: string): Promise<JsonObject> {
  const decidedBy = await deciderOf(env, by);
  return recorded(env, by, await withProject<DecisionChange>(env, by.projectId, (stub) => stub.withdrawDecision({ id, decidedBy })));
}

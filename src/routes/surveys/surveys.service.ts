// Survey changes shared by the HTTP handlers and the MCP tools: regenerate, delete and restore, each
// asked of the project object and recorded in the activity log only when something changed (a
// repeated key, or deleting a deleted survey, leaves no second entry).
import { recordChange, type Changer } from '../../control/changes';
import type { Env } from '../../env';
import { withProject } from '../../project/client';
import type { JobAnswer } from '../../project/jobs';
import { projectStoreMaxBytes } from '../../project/store-limit';
import type { Changed, RegenerateAnswer } from '../../project/surveys';

/** Runs the survey again from its upload (`skipAnalyze`: reports only) and records `survey.regenerated`. */
export async function regenerateSurvey(env: Env, by: Changer, input: { surveyId: string; idempotencyKey: string; skipAnalyze: boolean }): Promise<RegenerateAnswer> {
  const { answer, changed } = await withProject<Changed<RegenerateAnswer>>(env, by.projectId, (stub) => stub.regenerateSurvey(input, projectStoreMaxBytes(env)));
  if (changed) await recordChange(env, by, 'survey.regenerated', { surveyId: answer.parent_id, supersedes: answer.supersedes, skipAnalyze: input.skipAnalyze });
  return answer;
}

/** Hides the survey from the default job list and records `survey.deleted`. */
export async function deleteSurvey(env: Env, by: Changer, jobId: string): Promise<JobAnswer> {
  const { answer, changed } = await withProject<Changed<JobAnswer>>(env, by.projectId, (stub) => stub.deleteSurvey(jobId));
  if (changed) await recordChange(env, by, 'survey.deleted', { surveyId: jobId });
  return answer;
}

/** Brings a deleted survey back and records `survey.restored`. */
export async function restoreSurvey(env: Env, by: Changer, jobId: string): Promise<JobAnswer> {
  const { answer, changed } = await withProject<Changed<JobAnswer>>(env, by.projectId, (stub) => stub.restoreSurvey(jobId));
  if (changed) await recordChange(env, by, 'survey.restored', { surveyId: jobId });
  return answer;
}

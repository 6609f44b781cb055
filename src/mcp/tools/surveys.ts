// Surveys: regenerate one from the upload it has, delete one (hidden from the default job list) and
// restore it, with the HTTP operations' permissions and activity entries (src/routes/surveys/surveys.service.ts).
import { z } from 'zod';
import { deleteSurvey, regenerateSurvey, restoreSurvey } from '../../routes/surveys/surveys.service';
import { changerOn } from '../context';
import type { ToolRegistry } from './registry';
import { projectId, uuid } from './common';

const surveyId = uuid('The survey id: `id` of a survey in listJobs (topLevel=true), or `parent_id` of a regenerated one.');
const SurveyInput = z.object({ projectId, surveyId });

export function registerSurveyTools({ tool }: ToolRegistry): void {
  tool('regenerateSurvey', {
    title: 'Run a survey again',
    description: 'Runs the survey again from the upload it already has (no new upload). skipAnalyze=true (the default) reuses the analysis and produces the reports again; false repeats the analysis too. The old survey and its unfinished steps become SKIPPED. Answers the new survey: `parent_id` is its id (getJob, waitForJob), `supersedes` the old one, `sub_job_ids` its steps.',
    input: SurveyInput.extend({
      idempotencyKey: z.string().trim().min(1).max(255).describe('Any text naming this request (e.g. a new UUID): a repeat with the same key answers the same new survey instead of starting another.'),
      skipAnalyze: z.boolean().default(true).describe('true: only the reports again; false: the analysis too.'),
    }),
    scope: 'project:write', readOnly: false,
  }, async ({ projectId: project, surveyId: id, idempotencyKey, skipAnalyze }, context) =>
    regenerateSurvey(context.env, await changerOn(context, project, ['project:edit']), { surveyId: id, idempotencyKey, skipAnalyze }));

  tool('deleteSurvey', {
    title: 'Delete a survey',
    description: 'Hides a survey from the default job list (listJobs shows it with showDeleted=true; getJob still reads it); deleting it again changes nothing. Only a survey, not a step. Answers the survey with `deleted_at`; restoreSurvey brings it back.',
    input: SurveyInput, scope: 'project:write', readOnly: false, destructive: true,
  }, async ({ projectId: project, surveyId: id }, context) => deleteSurvey(context.env, await changerOn(context, project, ['project:edit']), id));

  tool('restoreSurvey', {
    title: 'Restore a deleted survey',
    description: 'Brings a deleted survey back into the default job list. Needs project:admin. Answers the survey without `deleted_at`.',
    input: SurveyInput, scope: 'project:write', readOnly: false,
  }, async ({ projectId: project, surveyId: id }, context) => restoreSurvey(context.env, await changerOn(context, project, ['project:admin']), id));
}

import { z } from '@hono/zod-openapi';
import { boundedJsonObject, uuidParam } from '../../lib/schemas';
import { JOB_STATUSES, SURVEY_TYPES } from '../../project/jobs';

export const IdempotencyKeyHeader = z.object({
  'idempotency-key': z.string().trim().min(1).max(255).openapi({ param: { name: 'idempotency-key', in: 'header' }, description: 'A repeat with the same key returns the same answer.' }),
});
export const OptionalIdempotencyKeyHeader = z.object({
  'idempotency-key': z.string().trim().min(1).max(255).optional().openapi({ param: { name: 'idempotency-key', in: 'header' } }),
});

export const StartSurveyRequest = z
  .object({
    jobType: z.enum(SURVEY_TYPES),
    tag: z.string().max(255).optional().openapi({ description: 'A label for the run, e.g. a release or branch.' }),
    jsonTags: boundedJsonObject().optional().openapi({ description: 'Free-form JSON tags; `ci_run_id` names the CI run (data health).' }),
    target: z.string().min(1).max(255).optional().openapi({ description: 'The subject the bundle is about (overrides the manifest and the BOM).' }),
    notes: z.string().max(10_000).optional(),
  })
  .openapi('StartSurveyRequest');

export const StartSurveyAnswer = z
  .object({
    parent_id: z.uuid().openapi({ description: 'The survey id; pass it as `parentId` to upload init.' }),
    submission_timestamp: z.string(),
    sub_job_ids: z.record(z.string(), z.uuid()).openapi({ description: 'Step ids by label (upload, analyze).' }),
  })
  .openapi('SurveyStarted');

export const StepStatusRequest = z
  .object({
    subJobId: z.uuid(),
    status: z.enum(JOB_STATUSES),
    progress: z.number().min(0).max(100).optional(),
    message: z.string().max(10_000).nullable().optional(),
    metadata: boundedJsonObject().optional(),
    analyzeStats: boundedJsonObject().optional(),
  })
  .openapi('StepStatusRequest');

export const RegenerateRequest = z.object({ skipAnalyze: z.boolean().optional() }).openapi('RegenerateSurveyRequest');

export const RegenerateAnswer = StartSurveyAnswer.extend({ supersedes: z.uuid() }).openapi('SurveyRegenerated');

export const SurveyParams = z.object({ projectId: uuidParam('projectId'), surveyId: uuidParam('surveyId') });
export const SurveyJobParams = z.object({ projectId: uuidParam('projectId'), jobId: uuidParam('jobId') });

export const CiQuery = z.object({
  format: z.enum(['sarif', 'junit', 'markdown']).openapi({ description: '`sarif` (SARIF 2.1.0), `junit` (JUnit XML) or `markdown` (the job summary).' }),
  path: z.string().min(1).max(1000).optional().openapi({ description: 'SARIF: the uploaded path relative to the repository (a directory ends with `/`). A result whose finding names no file of its own (an advisory, an asset without evidence) is placed on it, or on the document it came from inside that directory; GitHub code scanning needs a file on every result. Default: the document\'s name in the bundle.' }),
  failOn: z.string().max(500).optional().openapi({ description: 'The CLI\'s `--fail-on` tokens, comma-separated (e.g. `new-red,high+`): JUnit fails what they name and the summary says whether the gate passed. Without it JUnit fails red cryptography and critical or high advisories.' }),
});

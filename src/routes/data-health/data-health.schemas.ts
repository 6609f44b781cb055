import { z } from '@hono/zod-openapi';
import { Pagination } from '../../lib/schemas';
import { JOB_STATUSES } from '../../project/jobs';
import { boolQuery, statusQuery } from '../jobs/jobs.schemas';

const count = z.number().int().nullable();

export const Completeness = z
  .object({
    components: count.openapi({ description: 'Components found by this run (distinct by package URL, else name@version); null until it completes.' }),
    crypto_assets: count.openapi({ description: 'Cryptographic assets found (distinct by bom-ref, else name and asset type).' }),
    observations: count.openapi({ description: 'Runtime observations found (distinct by algorithm, protocol and library).' }),
    previous_run_id: z.uuid().nullable().openapi({ description: 'The subject\'s previous completed run of the same survey type.' }),
    previous_components: count,
    previous_crypto_assets: count,
    previous_observations: count,
    ratio: z.number().nullable().openapi({ description: 'Items found now over items found by the previous run (1 = as many); null without a previous run.', example: 0.95 }),
  })
  .openapi('DataHealthCompleteness');

export const HealthRun = z
  .object({
    id: z.uuid().openapi({ description: 'The run id, which is the survey id.' }),
    subject: z.string().nullable().openapi({ description: 'Null until the analysis determined it (unless the survey named a target).' }),
    survey_type: z.string().openapi({ example: 'INVENTORY_SURVEY' }),
    status: z.enum(JOB_STATUSES).openapi({ description: 'The survey\'s status.' }),
    outcome: z.enum(['complete', 'partial', 'failed']).nullable().openapi({ description: '`partial`: completed but parts of the bundle were skipped; null while the survey has not finished (or was superseded).' }),
    failure_class: z.string().nullable().openapi({ description: 'Why a failed run failed, e.g. `not_cyclonedx`, `archive_limits`, `no_subject`, `bundle_missing`, `internal`.' }),
    ci_run_id: z.string().nullable().openapi({ description: 'From the survey\'s jsonTags `ci_run_id`, else the bundle manifest\'s `ci.runId`.' }),
    tag: z.string().nullable(),
    created_at: z.string(),
    finished_at: z.string().nullable(),
    deleted_at: z.string().nullable(),
    completeness: Completeness,
  })
  .openapi('DataHealthRun');

export const HealthRunPage = z.object({ runs: z.array(HealthRun), pagination: Pagination }).openapi('DataHealthRunPage');

export const HealthRunQuery = z.object({
  subject: z.string().trim().min(1).max(512).optional().openapi({ param: { name: 'subject', in: 'query' }, description: 'Only runs of this subject.' }),
  status: statusQuery('FAILED'),
  showDeleted: boolQuery('showDeleted', 'Include runs of deleted surveys.'),
  limit: z.coerce.number().int().min(1).max(10_000).default(1000).openapi({ param: { name: 'limit', in: 'query' } }),
  sortDir: z.enum(['asc', 'desc']).default('desc').openapi({ param: { name: 'sortDir', in: 'query' } }),
  after: z.uuid().optional().openapi({ param: { name: 'after', in: 'query' }, description: 'A run id (`pagination.lastId`): the runs listed after it.' }),
  before: z.uuid().optional().openapi({ param: { name: 'before', in: 'query' }, description: 'A run id (`pagination.firstId`): the runs listed before it.' }),
});

export const SubjectHealth = z
  .object({
    subject: z.string(),
    last_analyzed_at: z.string().nullable().openapi({ description: 'When its latest completed run finished.' }),
    evidence: z.array(z.string()).openapi({ description: 'Kinds of evidence that have completed: `inventory`, `runtime`.', example: ['inventory'] }),
    latest_outcome: z.enum(['complete', 'partial', 'failed']).nullable(),
    latest_run_id: z.uuid(),
    latest_status: z.enum(JOB_STATUSES),
    completeness: Completeness,
  })
  .openapi('DataHealthSubject');

export const HealthSummary = z.object({ subjects: z.array(SubjectHealth), generated_at: z.string() }).openapi('DataHealthSummary');

export const ResolveQuery = z.object({
  ref: z.string().trim().min(1, 'ref must not be blank.').max(512).openapi({ param: { name: 'ref', in: 'query' }, description: 'A run id, step id, upload id, idempotency key, tag or CI run id.', example: 'ci-4711' }),
});

export const ResolveAnswer = z
  .object({
    kind: z.enum(['run', 'step', 'subject']),
    matched: z.enum(['run_id', 'step_id', 'upload_id', 'idempotency_key', 'tag', 'ci_run_id']),
    run_id: z.uuid().optional(),
    step_id: z.uuid().optional(),
    subject: z.string().optional(),
    deep_link: z.string().openapi({ description: 'The dashboard path of what matched, e.g. `/projects/{projectId}/data-health/runs/{runId}`.' }),
  })
  .openapi('DataHealthResolve');

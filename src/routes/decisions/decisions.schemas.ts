import { z } from '@hono/zod-openapi';
import { limitQuery, Pagination, ProjectParams, uuidParam } from '../../lib/schemas';
import { DECISION_STATES, JUSTIFICATIONS, RESPONSES, WITHDRAWN } from '../../triage/decision';

export { OptionalIdempotencyKeyHeader } from '../surveys/surveys.schemas';

const short = (max: number) => z.string().trim().min(1).max(max);

const VulnerabilityScope = z.object({
  type: z.literal('vulnerability'),
  advisory_id: short(200).openapi({ description: 'The advisory id or any of its aliases (CVE, GHSA, OSV).', example: 'CVE-2021-44228' }),
  package: short(2_000).nullish().openapi({ description: 'The package URL. Without it, the advisory in every package. With a version, that version only (unless `version_range`).', example: 'pkg:maven/org.apache.logging.log4j/log4j-core' }),
  version: short(200).nullish().openapi({ description: 'The one version of the package the decision is about.', example: '2.14.1' }),
  version_range: short(2_000).nullish().openapi({ description: 'The versions of the package, as a VERS range (CycloneDX VEX\'s `range`).', example: 'vers:maven/>=2.0.0|<2.17.1' }),
  subject: short(300).nullish().openapi({ description: 'One subject of the project; without it, every subject.' }),
}).openapi('VulnerabilityScope');

const CryptoScope = z.object({
  type: z.literal('crypto'),
  algorithm: short(200).nullish().openapi({ description: 'The algorithm as its ranked fix row names it (`algorithm:RSA` is RSA).', example: 'RSA' }),
  asset: short(500).nullish().openapi({ description: 'One cryptographic asset, by its key in the survey (its bom-ref).' }),
  subject: short(300).nullish().openapi({ description: 'One subject of the project; without it, every subject.' }),
}).openapi('CryptoScope');

export const FindingScope = z.discriminatedUnion('type', [VulnerabilityScope, CryptoScope]).openapi('FindingScope');

const AssessmentFields = {
  state: z.enum(DECISION_STATES).openapi({ description: 'CycloneDX\'s impact analysis state.' }),
  justification: z.enum(JUSTIFICATIONS).nullish().openapi({ description: 'Why the finding does not affect the product: required with `not_affected`.' }),
  response: z.array(z.enum(RESPONSES)).max(RESPONSES.length).nullish().openapi({ description: 'What is done about it.' }),
  detail: z.string().trim().max(10_000).nullish(),
  expires: z.string().trim().max(40).nullish().openapi({ description: 'For a cryptographic finding: after this date the finding counts again (a risk accepted, not forgotten).', example: '2027-06-30' }),
};

export const CreateDecision = z.object({ finding: FindingScope, ...AssessmentFields }).strict().openapi('CreateDecision');
export const UpdateDecision = z.object(AssessmentFields).strict().openapi('UpdateDecision');

const DecidedBy = z.object({ id: z.string(), email: z.string().nullable(), kind: z.string() }).openapi('DecidedBy');

export const Decision = z.object({
  id: z.uuid(),
  version: z.number().int().openapi({ description: 'Each change is a new version; the history keeps every one.' }),
  finding: z.object({
    type: z.enum(['vulnerability', 'crypto']),
    advisory_id: z.string().nullish(), package: z.string().nullish(), version: z.string().nullish(), version_range: z.string().nullish(),
    algorithm: z.string().nullish(), asset: z.string().nullish(), subject: z.string().nullable(),
  }),
  state: z.enum([...DECISION_STATES, WITHDRAWN]),
  justification: z.string().nullable(),
  response: z.array(z.string()),
  detail: z.string().nullable(),
  expires: z.string().nullable(),
  suppressed: z.boolean().openapi({ description: 'Whether the finding leaves scores, ranked fixes, summaries and the CLI gate now.' }),
  source: z.record(z.string(), z.unknown()).nullable().openapi({ description: 'The VEX document a decision came from (author, timestamp, id); null when decided here.' }),
  decided_by: DecidedBy,
  decided_at: z.string(),
}).openapi('Decision');

export const DecisionPage = z.object({ decisions: z.array(Decision), pagination: Pagination }).openapi('DecisionPage');
export const DecisionHistory = z.object({ id: z.uuid(), versions: z.array(Decision).openapi({ description: 'Newest first.' }) }).openapi('DecisionHistory');

export const DecisionParams = ProjectParams.extend({ decisionId: uuidParam('decisionId') });

export const DecisionListQuery = z.object({
  state: z.enum([...DECISION_STATES, WITHDRAWN]).optional().openapi({ param: { name: 'state', in: 'query' }, description: 'Withdrawn decisions are listed only when asked for.' }),
  type: z.enum(['vulnerability', 'crypto']).optional().openapi({ param: { name: 'type', in: 'query' } }),
  advisory_id: short(200).optional().openapi({ param: { name: 'advisory_id', in: 'query' } }),
  package: short(2_000).optional().openapi({ param: { name: 'package', in: 'query' }, description: 'A package URL, its version ignored.' }),
  algorithm: short(200).optional().openapi({ param: { name: 'algorithm', in: 'query' } }),
  subject: short(300).optional().openapi({ param: { name: 'subject', in: 'query' } }),
  limit: limitQuery,
  after: z.uuid().optional().openapi({ param: { name: 'after', in: 'query' }, description: 'A decision id (`pagination.lastId`): the older decisions after it.' }),
});

export const TriageQuery = z.object({
  type: z.enum(['vulnerability', 'crypto']).optional().openapi({ param: { name: 'type', in: 'query' } }),
  subject: short(300).optional().openapi({ param: { name: 'subject', in: 'query' } }),
  limit: z.coerce.number().int().min(1).max(1000).default(100).openapi({ param: { name: 'limit', in: 'query' }, example: 100 }),
  after: z.string().trim().min(1).max(4000).optional().openapi({ param: { name: 'after', in: 'query' }, description: '`next` of the page before.' }),
});

export const TriagePage = z.object({
  findings: z.array(z.object({
    subject: z.string(), type: z.enum(['vulnerability', 'crypto']), key: z.string(), name: z.string().nullable(),
    advisory_id: z.string().nullish(), aliases: z.array(z.string()).optional(), package: z.string().nullish(), version: z.string().nullish(),
    severity: z.string().optional(), fixed_version: z.string().nullish(),
    algorithm: z.string().nullish(), section: z.string().nullish(), deadline: z.string().nullish(), observed: z.boolean().optional(),
  }).openapi('UndecidedFinding')),
  next: z.string().nullable().openapi({ description: 'Pass as `after` for the next page; null at the end. A page can be short (each call reads a bounded number of findings) and still have a `next`.' }),
}).openapi('TriagePage');

import { z } from '@hono/zod-openapi';
import { ProjectParams, uuidParam } from '../../lib/schemas';

export const PortfolioParams = ProjectParams.extend({ portfolioId: uuidParam('portfolioId') });
export const MemberParams = PortfolioParams.extend({
  value: z.string().min(1).max(2048).openapi({ param: { name: 'value', in: 'path' }, description: 'The member\'s value, URL-encoded: a subject name or a package URL without a version.', example: 'payments-api' }),
});

const booleanQuery = (name: string) => z.enum(['true', 'false'], { error: `${name} is true or false.` }).default('false').transform((v) => v === 'true')
  .openapi({ param: { name, in: 'query' }, example: 'false' });

export const MemberInput = z.object({
  type: z.string().openapi({ description: '`subject` or `package`.', example: 'package' }),
  value: z.string().openapi({ description: 'A subject name, or a package URL without a version.', example: 'pkg:maven/org.bouncycastle/bcprov-jdk18on' }),
}).openapi('PortfolioMemberInput');

export const Member = z.object({ member_type: z.enum(['subject', 'package']), value: z.string() }).openapi('PortfolioMember');
export const MemberList = z.object({ members: z.array(Member) }).openapi('PortfolioMembers');

const Band = z.enum(['strong', 'fair', 'weak', 'critical']).nullable();
export const PortfolioEntry = z.object({
  portfolio_id: z.uuid(),
  name: z.string(),
  is_implicit: z.boolean(),
  members: z.array(Member),
  scoring: z.enum(['unscored', 'rescoring', 'scored']).openapi({ description: 'The scoring state: state and rank answer 503 until `scored`.' }),
  score: z.number().nullable().openapi({ description: 'The overall score (0 to 100) of the latest scoring, null before the first or without subjects.' }),
  band: Band,
  axes: z.object({ pqc: z.object({ score: z.number().nullable(), band: Band }), vuln: z.object({ score: z.number().nullable(), band: Band }), agility: z.object({ score: z.number().nullable(), band: Band }) }).nullable()
    .openapi({ description: 'Each axis\'s score and band of the latest scoring (as in the state\'s `score.axes`), null before the first.' }),
  scored_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
}).openapi('PortfolioEntry');
export const Portfolio = PortfolioEntry.extend({
  settings: z.record(z.string(), z.unknown()).openapi({ description: 'How it is scored: criticality weights, axis weights, band thresholds (docs/scoring.md).' }),
}).openapi('Portfolio');
export const PortfolioList = z.object({ portfolios: z.array(PortfolioEntry) }).openapi('PortfolioList');

export const CreatePortfolio = z.object({
  name: z.string().openapi({ example: 'Payments' }),
  members: z.array(z.union([MemberInput, z.string()])).optional(),
}).openapi('CreatePortfolio');
export const UpdatePortfolio = z.object({
  name: z.string().optional(),
  members: z.array(z.union([MemberInput, z.string()])).optional().openapi({ description: 'Replaces the whole list.' }),
}).openapi('UpdatePortfolio');
export const AddMember = z.union([MemberInput, z.string()]).openapi('AddPortfolioMember', { description: 'A member `{type, value}`, or a plain string (a subject name).' });

export const RemoveMemberQuery = z.object({
  type: z.enum(['subject', 'package'], { error: 'type is subject or package.' }).default('subject').openapi({ param: { name: 'type', in: 'query' }, example: 'subject' }),
});

export const HistoryQuery = z.object({
  axis: z.enum(['pqc', 'vuln', 'agility'], { error: 'axis is pqc, vuln or agility.' }).optional().openapi({ param: { name: 'axis', in: 'query' }, example: 'pqc' }),
});
export const History = z.object({
  rows: z.array(z.object({
    axis: z.enum(['pqc', 'vuln', 'agility']), score: z.number(), band: Band,
    cause: z.enum(['survey', 'membership', 'rating', 'vulnerability-data', 'snapshot', 'backfill', 'decision']), at: z.string(),
  })),
}).openapi('ScoreHistory');

export const RankQuery = z.object({
  offset: z.coerce.number().int().min(0).default(0).openapi({ param: { name: 'offset', in: 'query' }, example: 0 }),
  limit: z.coerce.number().int().min(1).max(10_000).default(1000).openapi({ param: { name: 'limit', in: 'query' }, example: 100 }),
  summary: booleanQuery('summary'),
});
export const RankFlag = z.object({ rank: booleanQuery('rank') });

export const FixRow = z.record(z.string(), z.unknown()).openapi('RankedFixRow', {
  description: 'One thing a team can do, best first: `rank`, `item_key` (a package URL without version to upgrade, or `algorithm:<name>` to migrate: the family for quantum-vulnerable cryptography, else the normalised name), `kind`, `action`, `gain` (the portfolio score gain, overall and per axis, if this row alone were fixed), `fix_version`, `replacement`, `findings` (each with `finding_key`, the points it is worth, and `decision` (`id`, `state`) when a decision that keeps it counted, in triage or exploitable, covers it everywhere), `items`, `occurrences`, `reach` (`count` and `subjects`), `dependencies` (the libraries it bundles). Summary rows have no `items` and at most 10 findings and occurrences (`findings_total`, `occurrences_total` count them all).',
});
export const RankPage = z.object({ rows: z.array(FixRow), total: z.number().int(), offset: z.number().int(), limit: z.number().int() }).openapi('RankPage');

const AxisScore = z.object({ score: z.number().nullable(), band: Band });
export const ScoreSchema = z.object({
  score: z.number().nullable(), band: Band,
  axes: z.object({ pqc: AxisScore, vuln: AxisScore, agility: AxisScore }),
}).openapi('PortfolioScore');
export const PortfolioState = z.object({
  portfolio_id: z.uuid(),
  name: z.string(),
  score: ScoreSchema,
  subjects: z.number().int(),
  findings: z.number().int(),
  fixes: z.number().int(),
  breakdown: z.record(z.string(), z.unknown()).openapi({ description: '`axes`: per axis its score, band, weight and the findings costing the most points; `subjects`: per subject its criticality, weight, scores and its costliest findings.' }),
  computed_at: z.string(),
  as_of: z.string(),
  rank: RankPage.optional().openapi({ description: 'Only with `rank=true`: the first 1,000 ranked fixes in summary form.' }),
}).openapi('PortfolioState');

export const Fix = z.object({
  item_key: z.string().optional(),
  finding_key: z.string().optional(),
  dependency: z.string().optional(),
  upgrade_to: z.string().optional(),
}).openapi('SimulatedFix');
export const SimulateBody = z.union([z.object({ fixes: z.array(Fix) }), z.array(Fix), Fix]).openapi('SimulateRequest', { description: 'One fix, a list of fixes, or `{fixes: [...]}`.' });
export const Simulation = z.object({
  current: ScoreSchema,
  projected: ScoreSchema.extend({ projected: z.literal(true) }),
  gain: z.record(z.string(), z.number()),
  fixes: z.array(z.record(z.string(), z.unknown())),
  rank: z.array(z.record(z.string(), z.unknown())).optional().openapi({ description: 'With `rank=true`: every remaining row re-ranked by its gain after the simulated fixes (`rank`, `previous_rank`, `item_key`, `name`, `gain`).' }),
}).openapi('Simulation');

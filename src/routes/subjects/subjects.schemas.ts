import { z } from '@hono/zod-openapi';
import { limitQuery, ProjectParams } from '../../lib/schemas';

export const SubjectParams = ProjectParams.extend({
  subject: z.string().min(1).max(1024).openapi({ param: { name: 'subject', in: 'path' }, description: 'The subject\'s name, URL-encoded.', example: 'payments-api' }),
});

export const SubjectList = z.object({
  subjects: z.array(z.object({
    name: z.string(), criticality: z.enum(['high', 'medium', 'low', 'unclassified']), first_seen: z.string(), last_seen: z.string(), latest_survey_id: z.string().nullable(),
  })),
}).openapi('SubjectList');

export const ContentQuery = z.object({
  offset: z.coerce.number().int().min(0).default(0).openapi({ param: { name: 'offset', in: 'query' }, example: 0 }),
  limit: limitQuery,
});
export const ContentPage = z.object({
  items: z.array(z.record(z.string(), z.unknown())),
  total: z.number().int(),
  offset: z.number().int(),
  limit: z.number().int(),
}).openapi('SubjectContentPage');

export const RateBody = z.object({
  value: z.enum(['high', 'medium', 'low', 'unclassified'], { error: 'value is one of high, medium, low, unclassified.' }),
  rationale: z.string().max(2000).nullable().optional(),
}).openapi('RateSubject');
export const Rating = z.object({
  value: z.enum(['high', 'medium', 'low', 'unclassified']),
  prior_value: z.enum(['high', 'medium', 'low', 'unclassified']),
  rater: z.object({ id: z.string(), email: z.string().nullable() }),
  rationale: z.string().nullable(),
  rated_at: z.string(),
}).openapi('CriticalityRating');
export const RatingHistory = z.array(Rating).openapi('CriticalityHistory');

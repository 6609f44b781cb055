// Subjects: list, contents, criticality ratings (history, and rating only with the change scope).
import { z } from 'zod';
import type { JsonObject } from '../../lib/json';
import { withPortfolioData } from '../../project/client';
import { rateSubject } from '../../routes/subjects/subjects.service';
import { onProject } from '../context';
import type { ToolRegistry } from './registry';
import { limit, offset, projectId, subject } from './common';

export function registerSubjectTools({ tool }: ToolRegistry): void {
  tool('listSubjects', {
    title: 'List subjects',
    description: 'The things scored in a project (applications, components): each subject\'s `name` (the subject the subject tools take, and a portfolio member\'s value), criticality and `latest_survey_id` (a survey\'s id for getJob).',
    input: z.object({ projectId }), scope: 'project:read', readOnly: true,
  }, async ({ projectId: project }, context) => {
    await onProject(context, project, ['project:portfolio:view']);
    return withPortfolioData<JsonObject>(context.env, project, (stub) => stub.listSubjects());
  });

  tool('getSubjectContent', {
    title: 'A subject\'s contents',
    description: 'What the latest analysis found in a subject: components, cryptographic assets and dependencies, paged.',
    input: z.object({ projectId, subject, offset, limit: limit(100) }), scope: 'project:read', readOnly: true,
  }, async ({ projectId: project, subject: name, offset: skip, limit: take }, context) => {
    await onProject(context, project, ['project:portfolio:view']);
    return withPortfolioData<JsonObject>(context.env, project, (stub) => stub.subjectContentPage({ subject: name, offset: skip, limit: take }));
  });

  tool('rateSubject', {
    title: 'Rate a subject\'s criticality',
    description: 'Sets a subject\'s criticality (high, medium, low, unclassified) with a rationale; every portfolio holding it is rescored. Recorded with the person as rater.',
    input: z.object({ projectId, subject, value: z.enum(['high', 'medium', 'low', 'unclassified']), rationale: z.string().max(2000).optional() }),
    scope: 'project:write', readOnly: false,
  }, async ({ projectId: project, subject: name, value, rationale }, context) => {
    const principal = await onProject(context, project, ['project:portfolio:rate']);
    return rateSubject(context.env, principal, { projectId: project, subject: name, value, rationale: rationale ?? null, traceId: context.requestId });
  });

  tool('getCriticalityHistory', {
    title: 'A subject\'s criticality ratings',
    description: 'Every rating of the subject, newest first: `value`, `prior_value`, the rater, `rationale` and when. An empty list for a subject never rated.',
    input: z.object({ projectId, subject }), scope: 'project:read', readOnly: true,
  }, async ({ projectId: project, subject: name }, context) => {
    await onProject(context, project, ['project:portfolio:view']);
    return withPortfolioData<JsonObject[]>(context.env, project, (stub) => stub.ratingHistory(name));
  });
}

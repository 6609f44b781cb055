import { defineRoute } from '../../lib/openapi';
import { json, jsonBody, ProjectParams } from '../../lib/schemas';
import type { Access } from '../../middleware/auth';
import { ContentPage, ContentQuery, RateBody, Rating, RatingHistory, SubjectList, SubjectParams } from './subjects.schemas';

const P = '/api/v1/project/{projectId}';
const tags = ['Subjects'];
const view: Access = { creds: 'any', permissions: ['project:portfolio:view'] };

export const listSubjects = defineRoute({
  operationId: 'listSubjects',
  method: 'get', path: `${P}/v1/subject`, tags, summary: 'List subjects',
  description: 'Every subject of the project by name, with its criticality and when it was first and last seen. 404 while the project\'s storage is still being set up.',
  access: view, errors: [404, 503],
  request: { params: ProjectParams },
  responses: { 200: { description: 'The subjects.', ...json(SubjectList) } },
});

export const subjectContent = defineRoute({
  operationId: 'getSubjectContent',
  method: 'get', path: `${P}/v1/subject/{subject}/content`, tags, summary: 'A subject\'s current contents',
  description: 'The items currently inside the subject (components, crypto assets, observations and their findings), by kind and key. 404 when no subject has the name.',
  access: view, errors: [400, 404, 503],
  request: { params: SubjectParams, query: ContentQuery },
  responses: { 200: { description: 'A page of contents.', ...json(ContentPage) } },
});

export const rateSubject = defineRoute({
  operationId: 'rateSubject',
  method: 'put', path: `${P}/v1/subject/{subject}/criticality`, tags, summary: 'Rate a subject\'s criticality',
  description: 'Kept as history, never overwritten; the caller is the rater. Every portfolio holding the subject is rescored (503 `rescoring` until done). 400 when `value` is missing or not one of the four; 404 when no subject has the name.',
  access: { creds: 'session', permissions: ['project:portfolio:rate'] }, errors: [400, 404, 415, 503],
  request: { params: SubjectParams, ...jsonBody(RateBody) },
  responses: { 200: { description: 'The rating.', ...json(Rating) } },
});

export const ratingHistory = defineRoute({
  operationId: 'getCriticalityHistory',
  method: 'get', path: `${P}/v1/subject/{subject}/criticality/history`, tags, summary: 'A subject\'s ratings',
  description: 'Newest first; an empty list for a subject never rated. 404 when no subject has the name, or while the project\'s storage is still being set up.',
  access: view, errors: [404, 503],
  request: { params: SubjectParams },
  responses: { 200: { description: 'The ratings.', ...json(RatingHistory) } },
});

// Parameters every tool area shares, as the assistant sees them (JSON Schema from zod), with the
// API's names and bounds. Ids are lower-cased once, here, as the API's path parameters are: the
// project authorized and the project object read are then one and the same.
import { z } from 'zod';

export const uuid = (what: string) => z.uuid({ error: 'must be a UUID.' }).overwrite((id) => id.toLowerCase()).describe(what);
export const projectId = uuid('The project id: `uuid` of a project in listProjects (`id` in getProject).');
export const offset = z.number().int().min(0).default(0).describe('Rows to skip.');
/** The API's page bounds (1 to 10000); the default is smaller, to fit an assistant's context. */
export const limit = (fallback: number, max = 10_000) => z.number().int().min(1).max(max).default(fallback).describe(`At most this many rows (1 to ${max}; ${fallback} when left out).`);
export const sortDir = z.enum(['asc', 'desc']).default('desc').describe('desc: newest first.');
/** A subject's name, as the API's path takes it. */
export const subject = z.string().min(1).max(1024).describe('A subject\'s name: `name` of a subject in listSubjects.');

/** The cursors of a cursor list: the previous answer's `pagination` names them. */
export const cursors = (rows: string) => ({
  after: uuid(`The ${rows} after this one: \`pagination.lastId\` of the page before (the next page).`).optional(),
  before: uuid(`The ${rows} before this one: \`pagination.firstId\` of the page after (the previous page).`).optional(),
});

/** The project an id names, read from a tool's arguments. */
export const ProjectInput = z.object({ projectId });

// Parameters every tool area shares, as the assistant sees them (JSON Schema from zod).
import { z } from 'zod';

export const uuid = (what: string) => z.uuid({ error: `${what} must be a UUID.` }).describe(what);
export const projectId = uuid('The project id (listProjects lists them).');
export const offset = z.number().int().min(0).default(0).describe('Rows to skip.');
export const limit = (fallback: number, max = 1000) => z.number().int().min(1).max(max).default(fallback).describe(`At most this many rows (1 to ${max}).`);
export const sortDir = z.enum(['asc', 'desc']).default('desc').describe('desc: newest first.');

/** The project an id names, read from a tool's arguments. */
export const ProjectInput = z.object({ projectId });

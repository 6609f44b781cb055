// Schemas shared by every family: path ids, paging parameters, cursors.
import { z } from '@hono/zod-openapi';

/** A UUID path parameter, named as in the route's path; lower-cased, so ids match whatever case the caller used. */
export const uuidParam = (name: string) => z.uuid({ error: `${name} must be a UUID.` }).overwrite((id) => id.toLowerCase()).openapi({ param: { name, in: 'path' }, example: '3f1c2a9e-6b1d-4c1e-9a51-2f7c0c6b8e10' });

export const OrgParams = z.object({ orgId: uuidParam('orgId') });
export const ProjectParams = z.object({ projectId: uuidParam('projectId') });

/** `limit`: 1 to 10000, 1000 when omitted (spec part 8). */
export const limitQuery = z.coerce.number().int().min(1).max(10_000).default(1000).openapi({ param: { name: 'limit', in: 'query' }, example: 1000 });

/** The page object of cursor lists (spec part 8). */
export const Pagination = z
  .object({
    firstId: z.string().nullable().openapi({ description: 'Pass as `before` for the previous page.' }),
    lastId: z.string().nullable().openapi({ description: 'Pass as `after` for the next page.' }),
    hasMore: z.boolean().openapi({ description: 'Whether more entries lie beyond this page in the direction paged.' }),
    total: z.number().int().openapi({ description: 'Every matching entry.' }),
  })
  .openapi('Pagination');

export const json = <T>(schema: T) => ({ content: { 'application/json': { schema } } });
export const jsonBody = <T>(schema: T, required = true) => ({ body: { required, content: { 'application/json': { schema } } } });

/** Depth of nesting of a JSON value (a scalar is 0). */
function jsonDepth(value: unknown, limit: number, depth = 0): number {
  if (depth > limit || value === null || typeof value !== 'object') return depth;
  let deepest = depth;
  for (const child of Object.values(value)) deepest = Math.max(deepest, jsonDepth(child, limit, depth + 1));
  return deepest;
}

export const JSON_FIELD_MAX_BYTES = 64 * 1024;
export const JSON_FIELD_MAX_DEPTH = 32;

/** A free-form JSON object field, bounded in size and nesting so it can be stored and carried. */
export const boundedJsonObject = () =>
  z.record(z.string(), z.unknown()).superRefine((value, ctx) => {
    if (jsonDepth(value, JSON_FIELD_MAX_DEPTH) > JSON_FIELD_MAX_DEPTH) {
      ctx.addIssue({ code: 'custom', message: `nested deeper than ${JSON_FIELD_MAX_DEPTH} levels` });
      return;
    }
    if (new TextEncoder().encode(JSON.stringify(value)).byteLength > JSON_FIELD_MAX_BYTES) {
      ctx.addIssue({ code: 'custom', message: `larger than ${JSON_FIELD_MAX_BYTES / 1024} KiB as JSON` });
    }
  });

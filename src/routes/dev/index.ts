// Local development only: seeding the demo tenant and minting sessions for scripts (`npm run dev`,
// `npm run dev:session`). Both answer 404 unless the instance has a DEV_SECRET (only `.dev.vars`
// sets one) and demand it in `X-Dev-Secret`; they go through the same sign-up and sign-in code.
import { z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { eq } from 'drizzle-orm';
import { bumpAccessEpoch } from '../../auth/access-cache';
import { createSignInLink, exchangeSignInLink } from '../../auth/sign-in';
import { controlDb } from '../../control/db';
import { organizations } from '../../control/schema';
import { createOrganization, ensureUser } from '../../control/tenancy';
import type { AppEnv } from '../../lib/context';
import { ApiError } from '../../lib/errors';
import { defineRoute } from '../../lib/openapi';
import { createRouter } from '../../lib/router';
import { SessionAnswer } from '../auth/auth.schemas';
import { projectStub } from '../../project/client';
import { renderedBytes } from '../../queues/render';
import { DOCUMENT_FORMATS } from '../../render/model';
import { sampleModel } from '../../render/sample';

export const DEMO = {
  orgId: '0d3e0000-0000-4000-8000-000000000001',
  projectId: '0d3e0000-0000-4000-8000-000000000002',
  orgName: 'Demo organization',
  projectName: 'Demo project',
  adminEmail: 'admin@demo.posture.local',
  adminName: 'Demo Admin',
} as const;

const devOnly: MiddlewareHandler<AppEnv> = async (c, next) => {
  const secret = c.env.DEV_SECRET;
  if (!secret) throw new ApiError('not_found', 'No such path.');
  const given = new TextEncoder().encode(c.req.header('x-dev-secret') ?? '');
  const expected = new TextEncoder().encode(secret);
  if (given.byteLength !== expected.byteLength || !crypto.subtle.timingSafeEqual(given, expected)) {
    throw new ApiError('unauthorized', 'Send the local DEV_SECRET in X-Dev-Secret.');
  }
  await next();
};

const seed = defineRoute({
  method: 'post',
  path: '/api/v1/dev/seed',
  tags: ['Local development'],
  summary: 'Seed the demo tenant (local instances only)',
  description: 'Creates, once, the demo organization, the demo project (`demoProject: true`) and its admin. 404 unless the instance has a DEV_SECRET.',
  access: 'public',
  errors: [401, 404],
  middleware: [devOnly],
  responses: {
    200: {
      description: 'The demo tenant.',
      content: { 'application/json': { schema: z.object({ orgId: z.uuid(), projectId: z.uuid(), adminEmail: z.string(), created: z.boolean() }) } },
    },
  },
});

const session = defineRoute({
  method: 'post',
  path: '/api/v1/dev/session',
  tags: ['Local development'],
  summary: 'A session for an email (local instances only)',
  description: 'Signs the person in through the email-link flow without the email, signing them up when unknown. 404 unless the instance has a DEV_SECRET.',
  access: 'public',
  errors: [401, 404],
  middleware: [devOnly],
  request: { body: { required: false, content: { 'application/json': { schema: z.object({ email: z.email().optional() }) } } } },
  responses: { 200: { description: 'A session.', content: { 'application/json': { schema: SessionAnswer } } } },
});

const storageCeiling = defineRoute({
  method: 'put',
  path: '/api/v1/dev/storage-ceiling',
  tags: ['Local development'],
  summary: 'Write the body to R2 with one put (local instances only)',
  description: 'The local storage ceiling the upload benchmark compares the CLI against: the request body goes to R2 in one plain `put`, then is deleted. Needs Content-Length. 404 unless the instance has a DEV_SECRET.',
  access: 'public',
  errors: [401, 404],
  middleware: [devOnly],
  responses: { 200: { description: 'Bytes written.', content: { 'application/json': { schema: z.object({ bytes: z.number().int() }) } } } },
});

const analysisFloor = defineRoute({
  method: 'post',
  path: '/api/v1/dev/analysis-floor',
  tags: ['Local development'],
  summary: 'The floor an analysis is measured against (local instances only)',
  description: 'What `npm run bench:analysis` compares the analysis with, in the same runtime: `JSON.parse` of the CycloneDX body, then one bulk insert of its components and crypto assets into the project\'s SQLite (rows deleted again). 404 unless the instance has a DEV_SECRET.',
  access: 'public',
  errors: [401, 404],
  middleware: [devOnly],
  request: { query: z.object({ projectId: z.uuid() }) },
  responses: { 200: { description: 'The floor\'s phases in milliseconds.', content: { 'application/json': { schema: z.object({ rows: z.number().int(), parseMs: z.number(), insertMs: z.number() }) } } } },
});

const renderSample = defineRoute({
  method: 'post',
  path: '/api/v1/dev/render-sample',
  tags: ['Local development'],
  summary: 'Render a synthetic report (local instances only)',
  description: 'What `npm run bench:render` measures: a synthetic report of `entries` entries rendered in `format` by the same renderer the render queue uses, in this runtime; nothing is stored. 404 unless the instance has a DEV_SECRET.',
  access: 'public',
  errors: [401, 404],
  middleware: [devOnly],
  request: { query: z.object({ format: z.enum(DOCUMENT_FORMATS), entries: z.coerce.number().int().min(1).max(100_000) }) },
  responses: { 200: { description: 'How long rendering took and how large the document is.', content: { 'application/json': { schema: z.object({ ms: z.number(), bytes: z.number().int() }) } } } },
});

/** Creates the demo tenant unless it exists; safe to call on every start. */
export async function seedDemo(d1: D1Database) {
  const db = controlDb(d1);
  const existing = await db.query.organizations.findFirst({ where: eq(organizations.id, DEMO.orgId) });
  if (existing) return { created: false };
  const admin = await ensureUser(db, DEMO.adminEmail, DEMO.adminName);
  await createOrganization(db, { name: DEMO.orgName, ownerId: admin.id, projectName: DEMO.projectName, demoProject: true, orgId: DEMO.orgId, projectId: DEMO.projectId, actor: null });
  return { created: true };
}

export const devRouter = createRouter()
  .openapi(renderSample, async (c) => {
    const { format, entries } = c.req.valid('query');
    const model = sampleModel(entries);
    const started = performance.now();
    const bytes = await renderedBytes(format, model);
    return c.json({ ms: performance.now() - started, bytes }, 200);
  })
  .openapi(analysisFloor, async (c) => {
    const text = await c.req.text();
    const started = performance.now();
    const document = JSON.parse(text) as { components?: Record<string, unknown>[] };
    const rows = (document.components ?? []).map((raw, i) => ({ key: String(raw['bom-ref'] ?? raw.purl ?? i), name: String(raw.name ?? ''), data: raw }));
    const parseMs = performance.now() - started;
    const insertMs = await projectStub(c.env, c.req.valid('query').projectId).analysisFloor(rows);
    return c.json({ rows: rows.length, parseMs, insertMs }, 200);
  })
  .openapi(storageCeiling, async (c) => {
    const length = Number(c.req.header('content-length'));
    if (!c.req.raw.body || !Number.isSafeInteger(length)) throw new ApiError('invalid_request', 'Send a body with Content-Length.');
    const key = `dev/storage-ceiling/${crypto.randomUUID()}`;
    const written = await c.env.BUNDLES.put(key, c.req.raw.body);
    await c.env.BUNDLES.delete(key);
    return c.json({ bytes: written?.size ?? 0 }, 200);
  })
  .openapi(seed, async (c) => {
    const { created } = await seedDemo(c.env.DB);
    return c.json({ orgId: DEMO.orgId, projectId: DEMO.projectId, adminEmail: DEMO.adminEmail, created }, 200);
  })
  .openapi(session, async (c) => {
    const email = c.req.valid('json').email ?? DEMO.adminEmail;
    const db = controlDb(c.env.DB);
    const token = await createSignInLink(db, c.env, email);
    const answer = await exchangeSignInLink(db, c.env, token, c.var.requestId);
    await bumpAccessEpoch(c.env, answer.orgId);
    return c.json(answer, 200);
  });

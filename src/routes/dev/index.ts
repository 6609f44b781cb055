// Local development only: seeding the demo tenant, minting sessions for scripts (`npm run dev`,
// `npm run dev:session`) and one-time dashboard sign-in links (`npm run dev`, `npm run dev:link`). All answer 404 unless the instance has a DEV_SECRET (only `.dev.vars`
// sets one) and demand it in `X-Dev-Secret`; they go through the same sign-up and sign-in code.
import { z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { eq } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import { bumpAccessEpoch } from '../../auth/access-cache';
import { SIGN_IN_LINK_MINUTES } from '../../auth/emails';
import { createSignInLink, exchangeSignInLink } from '../../auth/sign-in';
import { controlDb } from '../../control/db';
import { organizations } from '../../control/schema';
import { createOrganization, ensureUser } from '../../control/tenancy';
import type { AppEnv } from '../../lib/context';
import { ApiError } from '../../lib/errors';
import { defineRoute } from '../../lib/openapi';
import { createRouter } from '../../lib/router';
import { SessionAnswer } from '../auth/auth.schemas';
import { renderedBytes } from '../../queues/render';
import { DOCUMENT_FORMATS } from '../../render/model';
import { importStaged, stagingKey } from '../../vulndb/refresh';
import { samplePqcModel, sampleModel } from '../../render/sample';
import { measureAnalysisFloor, measureSurveyFloor } from './analysis-floor';
import { renderBenchReport, seedBenchReport } from './render-stored';
import { rescoreAll, seedBench } from './bench-seed';
import { EVENT_TYPES } from '../../notify/events';
import { withProject } from '../../project/client';

export const DEMO = {
  orgId: '0d3e0000-0000-4000-8000-000000000001',
  projectId: '0d3e0000-0000-4000-8000-000000000002',
  orgName: 'Demo organization',
  projectName: 'Demo project',
  adminEmail: 'admin@demo.posture.local',
  adminName: 'Demo Admin',
} as const;

export const devOnly: MiddlewareHandler<AppEnv> = async (c, next) => {
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
  operationId: 'devSeed',
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
  operationId: 'devSession',
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

const signInLink = defineRoute({
  operationId: 'devSignInLink',
  method: 'post',
  path: '/api/v1/dev/sign-in-link',
  tags: ['Local development'],
  summary: 'A one-time dashboard sign-in link for an email (local instances only)',
  description: 'The link the sign-in email would carry (`{DASHBOARD_URL}/sign-in#token=…`), recorded as an emailed one is: usable once, '
    + `valid ${SIGN_IN_LINK_MINUTES} minutes, signing an unknown person up when used (if sign-up is open). The admin of the demo tenant when \`email\` is left out. 404 unless the instance has a DEV_SECRET.`,
  access: 'public',
  errors: [400, 401, 404],
  middleware: [devOnly],
  request: { body: { required: false, content: { 'application/json': { schema: z.object({ email: z.email().optional() }) } } } },
  responses: {
    200: {
      description: 'The link, whom it signs in and until when.',
      content: { 'application/json': { schema: z.object({ url: z.string(), email: z.string(), expiresAt: z.string() }) } },
    },
  },
});

const storageCeiling = defineRoute({
  operationId: 'devStorageCeiling',
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
  operationId: 'devAnalysisFloor',
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

const FloorWrite = z.object({ rows: z.number().int(), ms: z.number() });

const surveyFloor = defineRoute({
  operationId: 'devSurveyFloor',
  method: 'post',
  path: '/api/v1/dev/analysis-floor/survey',
  tags: ['Local development'],
  summary: 'The floors a survey\'s steps are measured against (local instances only)',
  description: 'What `npm run bench:analysis` compares a survey\'s steps with, in the same runtime: every content row its analysis wrote, written again in one bulk insert into the project\'s SQLite (its indexes included), and each of its reports\' entries alone, in one bulk insert each; the rows are deleted again. 404 unless the instance has a DEV_SECRET.',
  access: 'public',
  errors: [401, 404],
  middleware: [devOnly],
  request: { query: z.object({ projectId: z.uuid(), surveyId: z.string().min(1) }) },
  responses: {
    200: {
      description: 'Each floor\'s rows and the milliseconds its transaction took.',
      content: { 'application/json': { schema: z.object({ contents: FloorWrite, reports: z.array(FloorWrite.extend({ type: z.string() })) }) } },
    },
  },
});

const vulndbStage = defineRoute({
  operationId: 'devVulndbStage',
  method: 'put',
  path: '/api/v1/dev/vulndb-stage',
  tags: ['Local development'],
  summary: 'Stage an OSV all.zip for an ecosystem (local instances only)',
  description: 'The request body (an OSV `all.zip`, with Content-Length) is written to R2 where the daily refresh stages the ecosystem\'s archive, as if it had been fetched; `npm run bench:vulndb` imports it with `POST /api/v1/dev/vulndb-import`. 404 unless the instance has a DEV_SECRET.',
  access: 'public',
  errors: [400, 401, 404],
  middleware: [devOnly],
  request: { query: z.object({ ecosystem: z.string().min(1).max(40) }) },
  responses: { 200: { description: 'Bytes staged.', content: { 'application/json': { schema: z.object({ bytes: z.number().int() }) } } } },
});

const vulndbImport = defineRoute({
  operationId: 'devVulndbImport',
  method: 'post',
  path: '/api/v1/dev/vulndb-import',
  tags: ['Local development'],
  summary: 'Import a staged OSV all.zip (local instances only)',
  description: 'Runs the daily refresh\'s import (src/vulndb/refresh.ts `importStaged`) of the ecosystem\'s staged archive in this request, without a budget, and answers its totals and time. 404 unless the instance has a DEV_SECRET.',
  access: 'public',
  errors: [401, 404],
  middleware: [devOnly],
  request: { query: z.object({ ecosystem: z.string().min(1).max(40) }) },
  responses: {
    200: {
      description: 'What the import did.',
      content: { 'application/json': { schema: z.object({ records: z.number().int(), inserted: z.number().int(), updated: z.number().int(), unchanged: z.number().int(), skipped: z.number().int(), complete: z.boolean(), ms: z.number() }) } },
    },
  },
});

const renderSample = defineRoute({
  operationId: 'devRenderSample',
  method: 'post',
  path: '/api/v1/dev/render-sample',
  tags: ['Local development'],
  summary: 'Render a synthetic report (local instances only)',
  description: 'What `npm run bench:render` measures: a synthetic report of `entries` entries rendered in `format` by the same renderer the render queue uses, in this runtime; nothing is stored. '
    + '`kind` `plain` (the default) is a report laid out as plain tables; `pqc` is a pqc-inventory report of stored-like entries laid out as the render queue lays one out (grouped by algorithm and verdict). The time is that of the rendering alone. 404 unless the instance has a DEV_SECRET.',
  access: 'public',
  errors: [401, 404],
  middleware: [devOnly],
  request: {
    query: z.object({
      format: z.enum(DOCUMENT_FORMATS), entries: z.coerce.number().int().min(1).max(100_000),
      kind: z.enum(['plain', 'pqc']).default('plain'),
    }),
  },
  responses: { 200: { description: 'How long rendering took and how large the document is.', content: { 'application/json': { schema: z.object({ ms: z.number(), bytes: z.number().int() }) } } } },
});

const renderStoredSeed = defineRoute({
  operationId: 'devRenderStoredSeed',
  method: 'post',
  path: '/api/v1/dev/render-stored/seed',
  tags: ['Local development'],
  summary: 'Write a slice of a synthetic stored report (local instances only)',
  description: 'What `npm run bench:render` renders at large sizes: entries `from` to `from + count` of a synthetic pqc-inventory report of `entries` entries, written straight into the project\'s report entries. 404 unless the instance has a DEV_SECRET.',
  access: 'public',
  errors: [400, 401, 404],
  middleware: [devOnly],
  request: {
    query: z.object({
      projectId: z.uuid(), entries: z.coerce.number().int().min(1).max(5_000_000),
      from: z.coerce.number().int().min(0), count: z.coerce.number().int().min(1).max(100_000),
    }),
  },
  responses: { 200: { description: 'Entries written and how long it took.', content: { 'application/json': { schema: z.object({ written: z.number().int(), ms: z.number() }) } } } },
});

const renderStored = defineRoute({
  operationId: 'devRenderStored',
  method: 'post',
  path: '/api/v1/dev/render-stored',
  tags: ['Local development'],
  summary: 'Render a seeded synthetic stored report (local instances only)',
  description: 'Renders the synthetic report of `entries` entries (seeded with `/api/v1/dev/render-stored/seed`) in `format` as the render queue renders a stored report: entries read page by page from the project object, the document written to R2 (then deleted). 404 unless the instance has a DEV_SECRET.',
  access: 'public',
  errors: [400, 401, 404],
  middleware: [devOnly],
  request: { query: z.object({ projectId: z.uuid(), entries: z.coerce.number().int().min(1).max(5_000_000), format: z.enum(DOCUMENT_FORMATS) }) },
  responses: { 200: { description: 'How long rendering took and how large the document is.', content: { 'application/json': { schema: z.object({ ms: z.number(), bytes: z.number().int() }) } } } },
});

const benchSeed = defineRoute({
  operationId: 'devBenchSeed',
  method: 'post',
  path: '/api/v1/dev/bench-seed',
  tags: ['Local development'],
  summary: 'Write synthetic analysis results into a project (local instances only)',
  description: 'What `npm run bench:scoring` scores: `subjects` subjects (`<prefix>-0001` ...) with `findings` `vuln_finding` and `crypto_finding` rows in all, '
    + 'about `components` components each, advisories of `packages` shared packages (their synthetic OSV records go into the vulnerability database unless `vulndb=false`) '
    + 'and 30 shared algorithms, written straight into the project\'s contents as analyses would have, `slice` subjects per call to the project object. '
    + 'With `score=true` every subject is then marked stale and every portfolio asked to be scored (as `POST /api/v1/dev/rescore` does). '
    + 'The same parameters give the same data. 404 unless the instance has a DEV_SECRET.',
  access: 'public',
  errors: [400, 401, 404],
  middleware: [devOnly],
  request: {
    query: z.object({
      projectId: z.uuid(),
      subjects: z.coerce.number().int().min(1).max(10_000).default(1000),
      findings: z.coerce.number().int().min(0).max(1_000_000).default(50_000),
      components: z.coerce.number().int().min(0).max(5_000).default(150),
      packages: z.coerce.number().int().min(3).max(5_000).default(400),
      seed: z.coerce.number().int().min(0).default(1),
      prefix: z.string().regex(/^[a-z0-9][a-z0-9-]{0,40}$/).default('bench-app'),
      slice: z.coerce.number().int().min(1).max(500).default(25),
      vulndb: z.enum(['true', 'false']).default('true').transform((v) => v === 'true'),
      score: z.enum(['true', 'false']).default('true').transform((v) => v === 'true'),
    }),
  },
  responses: {
    200: {
      description: 'What was written, how long it took, and package members a portfolio can use.',
      content: {
        'application/json': {
          schema: z.object({
            subjects: z.number().int(), components: z.number().int(), crypto_assets: z.number().int(), vuln_findings: z.number().int(), crypto_findings: z.number().int(),
            advisories: z.number().int(), prefix: z.string(), popular_packages: z.array(z.string()), ms: z.number(), vulndb_ms: z.number(),
            rescore: z.object({ portfolios: z.array(z.string()), subjects: z.number().int() }).nullable(),
          }),
        },
      },
    },
  },
});

const rescore = defineRoute({
  operationId: 'devRescore',
  method: 'post',
  path: '/api/v1/dev/rescore',
  tags: ['Local development'],
  summary: 'Score every portfolio from scratch (local instances only)',
  description: 'Marks every subject\'s scored findings stale (the next scoring recomputes them from the contents) and asks for every portfolio of the project to be scored. 404 unless the instance has a DEV_SECRET.',
  access: 'public',
  errors: [401, 404],
  middleware: [devOnly],
  request: { query: z.object({ projectId: z.uuid() }) },
  responses: { 200: { description: 'The portfolios asked for.', content: { 'application/json': { schema: z.object({ portfolios: z.array(z.string()), subjects: z.number().int() }) } } } },
});

const notifyBurst = defineRoute({
  operationId: 'devNotifyBurst',
  method: 'post',
  path: '/api/v1/dev/notify-burst',
  tags: ['Local development'],
  summary: 'Raise sample events through the project\'s rules (local instances only)',
  description: 'Raises `count` sample events of `type` at once, each matched against the project\'s rules and put in the outbox of every destination they name, as a real event is (`npm run bench:notify`). 404 unless the instance has a DEV_SECRET.',
  access: 'public',
  errors: [401, 404],
  middleware: [devOnly],
  request: { query: z.object({ projectId: z.uuid(), count: z.coerce.number().int().min(1).max(1000), type: z.enum(EVENT_TYPES).default('survey.completed') }) },
  responses: { 200: { description: 'The events raised and the messages they made.', content: { 'application/json': { schema: z.object({ events: z.array(z.object({ id: z.string(), occurred_at: z.string() })), messages: z.number().int() }) } } } },
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
  .openapi(notifyBurst, async (c) => {
    const { projectId, count, type } = c.req.valid('query');
    return c.json(await withProject<{ events: { id: string; occurred_at: string }[]; messages: number }>(c.env, projectId, (stub) => stub.devRaiseSamples({ count, type })), 200);
  })
  .openapi(benchSeed, async (c) => c.json(await seedBench(c.env, c.req.valid('query')), 200))
  .openapi(rescore, async (c) => c.json(await rescoreAll(c.env, c.req.valid('query').projectId), 200))
  .openapi(renderStoredSeed, async (c) => {
    const { projectId, entries, from, count } = c.req.valid('query');
    return c.json(await seedBenchReport(c.env, projectId, entries, from, count), 200);
  })
  .openapi(renderStored, async (c) => {
    const { projectId, entries, format } = c.req.valid('query');
    return c.json(await renderBenchReport(c.env, projectId, entries, format), 200);
  })
  .openapi(renderSample, async (c) => {
    const { format, entries, kind } = c.req.valid('query');
    const model = kind === 'pqc' ? samplePqcModel(entries) : sampleModel(entries);
    const started = performance.now();
    const bytes = await renderedBytes(format, model);
    return c.json({ ms: performance.now() - started, bytes }, 200);
  })
  .openapi(analysisFloor, async (c) => c.json(await measureAnalysisFloor(c.env, c.req.valid('query').projectId, await c.req.text()), 200))
  .openapi(surveyFloor, async (c) => {
    const { projectId, surveyId } = c.req.valid('query');
    return c.json(await measureSurveyFloor(c.env, projectId, surveyId), 200);
  })
  .openapi(vulndbStage, async (c) => {
    const length = Number(c.req.header('content-length'));
    if (!c.req.raw.body || !Number.isSafeInteger(length)) throw new ApiError('invalid_request', 'Send a body with Content-Length.');
    const written = await c.env.BUNDLES.put(stagingKey(c.req.valid('query').ecosystem), c.req.raw.body);
    return c.json({ bytes: written?.size ?? 0 }, 200);
  })
  .openapi(vulndbImport, async (c) => {
    const started = performance.now();
    const { records, inserted, updated, unchanged, skipped, complete } = await importStaged(c.env, stagingKey(c.req.valid('query').ecosystem));
    return c.json({ records, inserted, updated, unchanged, skipped, complete, ms: performance.now() - started }, 200);
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
  .openapi(signInLink, async (c) => {
    const email = c.req.valid('json').email ?? DEMO.adminEmail;
    const token = await createSignInLink(controlDb(c.env.DB), c.env, email);
    const { exp, sub } = decodeJwt(token);
    return c.json({
      url: `${c.env.DASHBOARD_URL.replace(/\/$/, '')}/sign-in#token=${encodeURIComponent(token)}`,
      email: String(sub),
      expiresAt: new Date(exp! * 1000).toISOString(),
    }, 200);
  })
  .openapi(session, async (c) => {
    const email = c.req.valid('json').email ?? DEMO.adminEmail;
    const db = controlDb(c.env.DB);
    const token = await createSignInLink(db, c.env, email);
    const answer = await exchangeSignInLink(db, c.env, token, c.var.requestId);
    await bumpAccessEpoch(c.env, answer.orgId);
    return c.json(answer, 200);
  });

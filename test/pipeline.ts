// Helpers for analysis-pipeline and data-health tests: a survey started through the API with the
// pass, its bundle put straight into R2 with the bundle row the upload would record, and the
// analysis queue's consumer called through the worker's own `queue` handler.
import { createExecutionContext, createMessageBatch, getQueueResult, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { drizzle } from 'drizzle-orm/durable-sqlite';
import { gzipSync } from 'fflate';
import { packTar } from 'modern-tar';
import { expect, vi } from 'vitest';
import worker from '../src/index';
import type { Env } from '../src/env';
import { newOrderedId, nowIso, sha256Hex } from '../src/lib/ids';
import type { ContentItem } from '../src/project/analysis-store';
import { POSTURE } from '../src/project/jobs';
import { projectStub } from '../src/project/client';
import { bundles, contents, stepLeases, uploads } from '../src/project/schema';
import { eq } from 'drizzle-orm';
import type { AnalysisMessage } from '../src/project/surveys';
import { liveRendersKey } from './worker';
import { api, json } from './helpers';

export const P = (projectId: string) => `/api/v1/project/${projectId}`;
const encoder = new TextEncoder();

export interface DataTenant {
  projectId: string;
  token: string;
  pass: string;
}

export interface Survey {
  surveyId: string;
  uploadStepId: string;
  analyzeStepId: string;
  idempotencyKey: string;
}

/** `POST P/survey` with the pass. */
export async function startSurvey(t: DataTenant, body: Record<string, unknown> = {}, key = crypto.randomUUID()): Promise<Survey> {
  const res = await api(`${P(t.projectId)}/survey`, { token: t.pass, body: { jobType: 'INVENTORY_SURVEY', ...body }, headers: { 'idempotency-key': key } });
  expect(res.status).toBe(201);
  const answer = await json(res);
  return { surveyId: answer.parent_id, uploadStepId: answer.sub_job_ids.upload, analyzeStepId: answer.sub_job_ids.analyze, idempotencyKey: key };
}

/**
 * What a completed upload leaves behind: the bundle in R2, its bundle and upload rows, the upload
 * step COMPLETED (reported through the API). Answers the analysis message the upload would queue.
 */
export async function uploaded(t: DataTenant, survey: Survey, data: Uint8Array | string, options: { put?: boolean } = {}): Promise<AnalysisMessage & { uploadId: string }> {
  const bytes = typeof data === 'string' ? encoder.encode(data) : data;
  const bundleId = newOrderedId();
  const blobKey = `projects/${t.projectId}/bundles/${bundleId}`;
  if (options.put !== false) await env.BUNDLES.put(blobKey, bytes);
  const sha256 = await sha256Hex(bytes);
  const uploadId = `upload-${bundleId}`;
  const now = nowIso();
  await runInDurableObject(projectStub(env, t.projectId), (_instance, state) => {
    const db = drizzle(state.storage);
    db.insert(bundles).values({ id: bundleId, sha256, sizeBytes: bytes.byteLength, mimeType: 'application/json', blobKey, surveyId: survey.surveyId, uploadedAt: now }).run();
    db.insert(uploads).values({
      uploadId, blobKey, bundleId, surveyId: survey.surveyId, stepId: survey.uploadStepId, sha256, sizeBytes: bytes.byteLength,
      partSize: 16 * 1024 * 1024, partCount: 1, status: 'queued', createdAt: now, completedAt: now,
    }).run();
  });
  const res = await api(`${P(t.projectId)}/survey/${survey.surveyId}/status`, { token: t.pass, body: { subJobId: survey.uploadStepId, status: 'COMPLETED' } });
  expect(res.status).toBe(204);
  return { projectId: t.projectId, surveyId: survey.surveyId, bundleId, blobKey, uploadId };
}

/** Calls the worker's queue handler with one message, as the queue would; answers the ack/retry result. */
export async function deliver(body: unknown, options: { attempts?: number; queue?: string; env?: Env } = {}) {
  const id = crypto.randomUUID();
  const batch = createMessageBatch(options.queue ?? 'posture-analysis', [{ id, timestamp: new Date(), attempts: options.attempts ?? 1, body }]);
  const ctx = createExecutionContext();
  await worker.queue(batch, options.env ?? env, ctx);
  return { id, result: await getQueueResult(batch, ctx) };
}

/** Starts a survey, uploads `data` and runs the analysis; answers the survey. */
export async function analysed(t: DataTenant, data: Uint8Array | string, body: Record<string, unknown> = {}) {
  const survey = await startSurvey(t, body);
  const message = await uploaded(t, survey, data);
  const { id, result } = await deliver(message);
  expect(result.explicitAcks).toEqual([id]);
  await buildReports(message);
  return { ...survey, message };
}

/**
 * Runs the survey's report phase at once, as the analysis queue would deliver it (the message the
 * finished analysis queued; a later real delivery of it finds the work done and is acked).
 */
export async function buildReports(message: AnalysisMessage) {
  const { id, result } = await deliver({ ...message, phase: 'report' });
  expect(result.explicitAcks).toEqual([id]);
  // The queue may have delivered it first (this delivery then finds the work taken): wait for it.
  await vi.waitFor(async () => {
    const survey = (await (projectStub(env, message.projectId) as any).getJob(message.surveyId)) as { steps: { step_type: string; status: string }[] };
    expect(survey.steps.filter((s) => s.step_type === 'REPORT' && ['PENDING', 'RUNNING'].includes(s.status))).toEqual([]);
  }, { timeout: 15_000, interval: 50 });
}

export async function getJob(t: DataTenant, jobId: string) {
  const res = await api(`${P(t.projectId)}/v1/job/${jobId}`, { token: t.token });
  expect(res.status).toBe(200);
  return json(res);
}

export const analyzeStep = (survey: { steps: { step_type: string }[] }) => survey.steps.find((s) => s.step_type === 'ANALYZE') as any;

/** A subject's current contents (every kind, or one), read from the project object. */
export async function contentsOf(projectId: string, subject: string, kind?: string) {
  const stub = projectStub(env, projectId) as any;
  const page = (await stub.subjectContents({ subject, kind, offset: 0, limit: 10_000 })) as { items: ContentItem[]; total: number };
  if (kind) return page;
  // What the bundles held; the findings derived from them are read by kind (and tested with the reports).
  const items = page.items.filter((i) => !i.kind.endsWith('_finding'));
  return { items, total: items.length };
}

export function tarGz(files: Record<string, string | Uint8Array>): Promise<Uint8Array> {
  return packTar(
    Object.entries(files).map(([name, body]) => {
      const data = typeof body === 'string' ? encoder.encode(body) : body;
      return { header: { name, size: data.byteLength, type: 'file' as const }, body: data };
    }),
  ).then((tar) => gzipSync(tar));
}

/** A CycloneDX 1.6 document naming `subject` with the given npm packages. */
export function sbom(subject: string | null, packages: [string, string][]): string {
  return JSON.stringify({
    bomFormat: 'CycloneDX', specVersion: '1.6', version: 1,
    ...(subject ? { metadata: { component: { type: 'application', name: subject } } } : {}),
    components: packages.map(([name, version]) => ({ type: 'library', name, version, purl: `pkg:npm/${name}@${version}` })),
  });
}

/** A CycloneDX SBOM of Maven packages (group, artifact, version). */
export function mavenSbom(subject: string, packages: [string, string, string][]): string {
  return JSON.stringify({
    bomFormat: 'CycloneDX', specVersion: '1.6', version: 1, metadata: { component: { type: 'application', name: subject } },
    components: packages.map(([group, name, version]) => ({ type: 'library', group, name, version, purl: `pkg:maven/${group}/${name}@${version}` })),
  });
}

/** log4j-core at a version, as a Maven package of mavenSbom. */
export const log4j = (version: string): [string, string, string] => ['org.apache.logging.log4j', 'log4j-core', version];

/** How many content rows the survey's analysis attempts have stored, pointed at or not (read inside the project object). */
export async function storedRowCount(projectId: string, surveyId: string): Promise<number> {
  return runInDurableObject(projectStub(env, projectId), (_instance, state) =>
    drizzle(state.storage).select().from(contents).where(eq(contents.surveyId, surveyId)).all().length);
}

/**
 * The real scoring queue's consumer may have finished a snapshot scoring (its work row is gone) while
 * the posture report that scoring calls for is still being written, between awaits of the same call:
 * waits for those reports (PENDING or RUNNING posture steps) to be written.
 */
async function postureReportsWritten(t: { projectId: string }): Promise<void> {
  const writing = () => runInDurableObject(projectStub(env, t.projectId), (_i, state) =>
    state.storage.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM jobs WHERE step_label = ? AND status IN ('PENDING', 'RUNNING')`, POSTURE).one().n);
  await vi.waitFor(async () => expect(await writing()).toBe(0), { timeout: 20_000, interval: 50 });
}

/**
 * What the survey's attempt holding (or last holding) the ANALYZE lease stored, by kind: written in the
 * same transaction as the rows, and kept when the attempt fails, whereas the rows themselves are
 * queued for deletion at once and the alarm may already have taken them.
 */
export async function leaseCounts(projectId: string, surveyId: string): Promise<Record<string, number>> {
  return runInDurableObject(projectStub(env, projectId), (_instance, state) =>
    drizzle(state.storage).select().from(stepLeases).where(eq(stepLeases.surveyId, surveyId)).get()?.counts ?? {});
}

/** Runs the project object's alarm until it has nothing left to delete (slices of queued deletions). */
export async function drainPurges(projectId: string): Promise<void> {
  const stub = projectStub(env, projectId);
  for (let i = 0; i < 1000; i++) {
    const pending = await runInDurableObject(stub, (_instance, state) => state.storage.sql.exec('SELECT count(*) AS n FROM content_purges').one().n as number);
    if (!pending) return;
    await runDurableObjectAlarm(stub);
  }
  throw new Error('queued deletions did not drain');
}

/**
 * Report work the queues can finish, in one project: REPORT steps still PENDING or RUNNING (posture
 * reports, a survey's reports, and render jobs where the real queue renders them: test/worker.ts),
 * except a survey's reports while its upload has not completed, which wait for a bundle no test will
 * send, and, as the job list hides them, those of a deleted survey.
 */
const openReportWork = (withRenders: boolean) => `SELECT count(*) AS n FROM jobs r WHERE r.step_type = 'REPORT' AND r.status IN ('PENDING', 'RUNNING')
  ${withRenders ? '' : "AND r.step_label NOT LIKE 'render:%'"}
  AND r.deleted_at IS NULL AND (r.parent_id IS NULL OR r.parent_id NOT IN (SELECT id FROM jobs WHERE deleted_at IS NOT NULL OR parent_id IN (SELECT id FROM jobs WHERE deleted_at IS NOT NULL)))
  AND NOT EXISTS (SELECT 1 FROM jobs u WHERE u.parent_id = r.parent_id AND u.step_type = 'UPLOAD' AND u.status IN ('PENDING', 'RUNNING'))`;

/**
 * Lets the report work the real queues are doing for these projects finish before the test file
 * ends (at most `ms`): work still running when the file's environment is torn down fails noisily.
 * Teardown hygiene, not an assertion: it gives up quietly (and when a project's storage is gone).
 */
export async function letRendersFinish(tenants: { projectId: string }[], ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (const t of tenants) {
    const query = openReportWork((await env.BUNDLES.head(liveRendersKey(t.projectId))) !== null);
    while (Date.now() < deadline) {
      const open = await runInDurableObject(projectStub(env, t.projectId), (_i, state) => state.storage.sql.exec<{ n: number }>(query).one().n)
        .catch(() => 0);
      if (!open) break;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/**
 * Lets the scoring the real queue still has to do for these projects (a new project's built-in
 * portfolio, a survey's subjects) finish before the test file ends (at most `ms`), as letRendersFinish
 * does for renders: a consumer still running when the environment is torn down fails the run noisily.
 */
export async function letScoringFinish(tenants: { projectId: string }[], ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (const t of tenants) {
    while (Date.now() < deadline) {
      const waiting = await runInDurableObject(projectStub(env, t.projectId), (_i, state) => state.storage.sql.exec('SELECT 1 FROM scoring_work LIMIT 1').toArray().length);
      if (!waiting) break;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  // The consumer that removed the last row may still be writing its answer.
  await new Promise((r) => setTimeout(r, 200));
}

/** Delivers every scoring message the project object has waiting, as the scoring queue would, until none is left. */
export async function settleScoring(t: { projectId: string }): Promise<void> {
  for (let round = 0; round < 10; round++) {
    const work = await runInDurableObject(projectStub(env, t.projectId), (_i, state) =>
      state.storage.sql.exec<{ portfolio_id: string; generation: number; cause: string }>('SELECT portfolio_id, generation, cause FROM scoring_work').toArray());
    if (!work.length) return postureReportsWritten(t);
    for (const w of work) {
      const { id, result } = await deliver({ projectId: t.projectId, portfolioId: w.portfolio_id, generation: w.generation, cause: w.cause }, { queue: 'posture-scoring' });
      expect(result.explicitAcks).toEqual([id]);
    }
  }
  const left = await runInDurableObject(projectStub(env, t.projectId), (_i, state) => state.storage.sql.exec('SELECT * FROM scoring_work').toArray());
  throw new Error(`scoring did not settle: ${JSON.stringify(left)}`);
}

/**
 * Renders the documents the project's render jobs wait for (of every report and format, or only of
 * `reportIds` and `formats`), as the render queue would deliver them, until none is left: the tests'
 * Worker holds the queue's own deliveries back (test/worker.ts). A delivery the consumer retries
 * comes again in the next round.
 */
export async function renderDocuments(t: { projectId: string }, only: { formats?: string[]; reportIds?: string[] } = {}): Promise<void> {
  const stub = projectStub(env, t.projectId);
  const [formats, reportIds] = [JSON.stringify(only.formats ?? null), JSON.stringify(only.reportIds ?? null)];
  for (let round = 1; round <= 5; round++) {
    const work = await runInDurableObject(stub, (_i, state) => state.storage.sql.exec<{ job_id: string; report_id: string; format: string }>(
      `SELECT w.job_id, w.report_id, w.format FROM render_work w JOIN jobs j ON j.id = w.job_id WHERE j.status IN ('PENDING', 'RUNNING')
       AND (json(?1) = 'null' OR w.format IN (SELECT value FROM json_each(?1)))
       AND (json(?2) = 'null' OR w.report_id IN (SELECT value FROM json_each(?2)))`, formats, reportIds).toArray());
    if (!work.length) return;
    for (const w of work) await deliver({ projectId: t.projectId, reportId: w.report_id, jobId: w.job_id, format: w.format }, { queue: 'posture-render', attempts: round });
  }
  throw new Error(`the render jobs of project ${t.projectId} did not finish in 5 rounds`);
}

/** From now on the real render queue renders this project's documents as it does in production (test/worker.ts). */
export async function liveRenders(t: { projectId: string }): Promise<void> {
  await env.BUNDLES.put(liveRendersKey(t.projectId), '');
}

// Uploads inside the project object (spec 4.7, ARCHITECTURE section 4): start an R2 multipart
// upload for a survey and hand out signed part URLs, record the client's progress, complete and
// verify the bundle (SHA-256 streamed from R2), queue its analysis, and list bundles. Parts
// themselves never pass through here: the Worker streams them straight into R2.
import { and, eq } from 'drizzle-orm';
import { partTokenExpiry, signPartToken } from '../auth/part-token';
import { signingKeys } from '../auth/tokens';
import { ApiError, conflict, invalidRequest, notFound } from '../lib/errors';
import { newOrderedId, nowIso } from '../lib/ids';
import { changeJob, createSurvey, findJob, isFinished, isSurvey, settleSurvey, stepOf, type JobRow } from './jobs';
import * as health from './health';
import { queueWork } from './leases';
import { sniffMimeType, streamedSha256 } from './blob';
import type { ProjectState } from './state';
import { bundles, jobs, uploads } from './schema';
import { assertRoomForSurvey, DEFAULT_PROJECT_STORE_MAX_BYTES } from './store-limit';

const MIB = 1024 * 1024;
/** Every part but the last has this size (R2 wants at least 5 MiB); at most MAX_PARTS parts. */
export const PART_SIZE = 16 * MIB;
export const MAX_PARTS = 10_000;
/** How long part URLs stay valid (`expiresIn`). */
export const PART_URL_SECONDS = 3600;
/** A repeated init re-signs the part URLs once fewer than this many seconds of validity remain. */
const RESIGN_BELOW_SECONDS = 900;

/** 16 MiB parts; larger (whole MiB) only when a bundle would otherwise need more than 10,000. */
export function partLayout(sizeBytes: number): { partSize: number; partCount: number } {
  const partSize = Math.max(PART_SIZE, Math.ceil(sizeBytes / MAX_PARTS / MIB) * MIB);
  return { partSize, partCount: Math.ceil(sizeBytes / partSize) };
}

export const blobKeyPrefix = (projectId: string) => `projects/${projectId}/`;

export interface InitUploadInput {
  idempotencyKey: string;
  sha256: string;
  sizeBytes: number;
  parentId?: string;
  /** Where part URLs point: the origin the client called. */
  origin: string;
}

export interface UploadPart {
  partNumber: number;
  presignedUrl: string;
  offset: number;
  size: number;
}

export interface InitUploadAnswer {
  parts: UploadPart[];
  expiresIn: number;
  uploadId: string;
  blobKey: string;
  bundleId: string;
  jobId: string;
}

type UploadRow = typeof uploads.$inferSelect;

/**
 * Starts (or, for a repeated key, answers again) the upload of one bundle into a survey. Without
 * `parentId` it starts a survey: 409 `storage_full` once the store reached `storeMaxBytes`.
 */
export async function initUpload(state: ProjectState, input: InitUploadInput, storeMaxBytes = DEFAULT_PROJECT_STORE_MAX_BYTES): Promise<InitUploadAnswer> {
  const { idempotencyKey, origin, ...request } = input;
  const answer = await state.idempotency.run('upload.init', idempotencyKey, request, () => startUpload(state, { ...request, idempotencyKey, origin }, storeMaxBytes));
  return resignedIfStale(state, answer, origin);
}

async function startUpload(state: ProjectState, input: InitUploadInput, storeMaxBytes: number): Promise<InitUploadAnswer> {
  const { db, env, projectId } = state;
  // Bad input, or no room for a new survey, fails before anything exists in R2.
  if (input.parentId) uploadableSurvey(state, input.parentId);
  else await assertRoomForSurvey(state, storeMaxBytes);
  const bundleId = newOrderedId();
  const blobKey = `${blobKeyPrefix(projectId)}bundles/${bundleId}`;
  const multipart = await env.BUNDLES.createMultipartUpload(blobKey, {
    httpMetadata: { contentType: 'application/octet-stream' },
    customMetadata: { bundleId, sha256: input.sha256 },
  });
  const { partSize, partCount } = partLayout(input.sizeBytes);
  const parts = await signParts(state, { uploadId: multipart.uploadId, blobKey, sizeBytes: input.sizeBytes, partSize }, input.origin);

  // From here nothing awaits, so the checks and writes are one unit even against a concurrent init
  // (with another key) for the same survey, which may have passed the first check meanwhile.
  let survey: JobRow;
  try {
    if (input.parentId) survey = uploadableSurvey(state, input.parentId);
    else {
      survey = createSurvey(db, { jobType: 'INVENTORY_SURVEY' }).survey;
      health.runCreated(state, survey, { idempotencyKey: input.idempotencyKey });
    }
  } catch (error) {
    await multipart.abort().catch(() => undefined);
    throw error;
  }
  const step = stepOf(db, survey.id, 'UPLOAD');
  db.insert(uploads).values({
    uploadId: multipart.uploadId, blobKey, bundleId, surveyId: survey.id, stepId: step.id, sha256: input.sha256,
    sizeBytes: input.sizeBytes, partSize, partCount, status: 'started', idempotencyKey: input.idempotencyKey, createdAt: nowIso(),
  }).run();
  const running = changeJob(db, step, {
    status: 'RUNNING', message: `Receiving the bundle (${partCount} part${partCount === 1 ? '' : 's'}).`,
    metadata: { bundleId, uploadId: multipart.uploadId, sizeBytes: input.sizeBytes, sha256: input.sha256 },
  });
  state.notify([running, settleSurvey(db, survey.id)]);
  return { parts, expiresIn: PART_URL_SECONDS, uploadId: multipart.uploadId, blobKey, bundleId, jobId: survey.id };
}

/** The survey `parentId` names, if it can take an upload: 404 unknown, 400 not a survey, 409 taken. */
function uploadableSurvey(state: ProjectState, surveyId: string): JobRow {
  const survey = findJob(state.db, surveyId);
  if (!survey) throw notFound('No survey with this parentId exists in the project.');
  if (!isSurvey(survey)) throw invalidRequest('parentId names a job that is not a survey (a step, or another type of job).');
  const step = stepOf(state.db, survey.id, 'UPLOAD');
  if (isFinished(step.status)) throw conflict(`The survey's upload step is ${step.status}; start a new survey for a new upload.`);
  if (state.db.select({ id: uploads.uploadId }).from(uploads).where(eq(uploads.surveyId, survey.id)).get()) {
    throw conflict('The survey already has an upload; repeat upload init with its Idempotency-Key to resume it, or start a new survey.');
  }
  return survey;
}

async function signParts(state: ProjectState, upload: Pick<UploadRow, 'uploadId' | 'blobKey' | 'sizeBytes' | 'partSize'>, origin: string): Promise<UploadPart[]> {
  const exp = Math.floor(Date.now() / 1000) + PART_URL_SECONDS;
  const base = `${origin}/api/v1/project/${state.projectId}/bundle/upload/part?token=`;
  const count = Math.ceil(upload.sizeBytes / upload.partSize);
  const keys = await signingKeys(state.env);
  return Promise.all(Array.from({ length: count }, async (_, i) => {
    const offset = i * upload.partSize;
    const size = Math.min(upload.partSize, upload.sizeBytes - offset);
    const grant = { projectId: state.projectId, uploadId: upload.uploadId, blobKey: upload.blobKey, partNumber: i + 1, size };
    return { partNumber: i + 1, presignedUrl: base + (await signPartToken(keys, grant, exp)), offset, size };
  }));
}

/** A repeat long after the first answer (a resumed upload) gets the same upload with URLs that still work. */
async function resignedIfStale(state: ProjectState, answer: InitUploadAnswer, origin: string): Promise<InitUploadAnswer> {
  const token = new URL(answer.parts[0]!.presignedUrl).searchParams.get('token') ?? '';
  if (partTokenExpiry(token) - Date.now() / 1000 > RESIGN_BELOW_SECONDS) return answer;
  const upload = state.db.select().from(uploads).where(eq(uploads.uploadId, answer.uploadId)).get();
  if (!upload || upload.status !== 'started') return answer;
  return { ...answer, parts: await signParts(state, upload, origin), expiresIn: PART_URL_SECONDS };
}

export interface ProgressInput {
  jobId: string;
  progress: number;
}

/** Records upload progress on the survey's UPLOAD step; anything it cannot apply is ignored (spec part 3). */
export function reportUploadProgress(state: ProjectState, input: ProgressInput): void {
  const job = findJob(state.db, input.jobId);
  let step: JobRow | undefined;
  if (job && isSurvey(job)) step = state.db.select().from(jobs).where(and(eq(jobs.parentId, job.id), eq(jobs.stepType, 'UPLOAD'))).get();
  else if (job?.stepType === 'UPLOAD') step = job;
  if (!step || isFinished(step.status) || input.progress <= step.progress) return;
  state.notify([changeJob(state.db, step, { progress: input.progress })]);
}

export interface CompleteUploadInput {
  idempotencyKey: string;
  uploadId: string;
  blobKey: string;
  sha256: string;
  parts: { partNumber: number; etag: string }[];
}

/** The object's answer; the route answers `{ status, bundleId }` and records the rest as activity. */
export interface CompleteUploadAnswer {
  status: 'queued';
  bundleId: string;
  surveyId: string;
  sha256: string;
  sizeBytes: number;
  mimeType: string;
}

// One completion per upload at a time: a concurrent repeat (also under another key) joins it.
const completing = new Map<string, Promise<CompleteUploadAnswer>>();

/**
 * Completes the multipart upload, verifies the bundle's SHA-256 and queues its analysis. Repeats
 * answer the same, including the same 400 after a checksum mismatch.
 */
export async function completeUpload(state: ProjectState, input: CompleteUploadInput): Promise<CompleteUploadAnswer> {
  const { idempotencyKey, ...request } = input;
  return state.idempotency.run('upload.complete', idempotencyKey, request, () => {
    const upload = state.db.select().from(uploads).where(eq(uploads.blobKey, request.blobKey)).get();
    if (!upload) throw notFound('No upload was started for this blobKey.');
    if (upload.uploadId !== request.uploadId) throw invalidRequest('uploadId is not the upload of this blobKey.');
    if (upload.sha256 !== request.sha256) throw invalidRequest(`sha256 is not the one announced at upload init (${upload.sha256}).`);
    let run = completing.get(upload.blobKey);
    if (!run) {
      run = finishUpload(state, upload, request.parts).finally(() => completing.delete(upload.blobKey));
      completing.set(upload.blobKey, run);
    }
    return run;
  });
}

async function finishUpload(state: ProjectState, upload: UploadRow, parts: CompleteUploadInput['parts']): Promise<CompleteUploadAnswer> {
  const { db, env } = state;
  if (upload.status === 'started') {
    assertStepOpen(state, upload);
    await completeMultipart(state, upload, parts);
    const actual = await streamedSha256(env.BUNDLES, upload.blobKey);
    assertStepOpen(state, upload);
    if (actual !== upload.sha256) {
      await env.BUNDLES.delete(upload.blobKey);
      failUpload(state, upload, `Checksum mismatch: the upload was announced with SHA-256 ${upload.sha256} but the received bundle has SHA-256 ${actual ?? '(nothing received)'}; the bundle was discarded.`);
    } else {
      acceptBundle(state, upload, await sniffMimeType(env.BUNDLES, upload.blobKey));
    }
  }
  const current = db.select().from(uploads).where(eq(uploads.uploadId, upload.uploadId)).get()!;
  if (current.status === 'failed') throw invalidRequest(stepOf(db, upload.surveyId, 'UPLOAD').message ?? 'The upload failed verification.');
  const bundle = db.select().from(bundles).where(eq(bundles.id, upload.bundleId)).get()!;
  if (current.status === 'verified') {
    // Sent only once the bundle is recorded (the consumer reads it), and repeated by a retry when
    // the send itself failed: the consumer is idempotent per survey.
    await queueWork(state, stepOf(db, upload.surveyId, 'ANALYZE'), { projectId: state.projectId, surveyId: upload.surveyId, bundleId: bundle.id, blobKey: bundle.blobKey });
    db.update(uploads).set({ status: 'queued' }).where(eq(uploads.uploadId, upload.uploadId)).run();
  }
  return { status: 'queued', bundleId: bundle.id, surveyId: upload.surveyId, sha256: bundle.sha256, sizeBytes: bundle.sizeBytes, mimeType: bundle.mimeType };
}

/** An upload whose step was finished elsewhere (reported FAILED, superseded) cannot complete. */
function assertStepOpen(state: ProjectState, upload: UploadRow): void {
  const step = findJob(state.db, upload.stepId);
  if (step && isFinished(step.status)) throw conflict(`The survey's upload step is already ${step.status}; start a new survey for a new upload.`);
}

/** R2's error code, e.g. 10025 in "... could not be found. (10025)". */
const r2Code = (error: unknown) => Number(/\((\d{5,6})\)\s*$/.exec(error instanceof Error ? error.message : '')?.[1] ?? 0);

async function completeMultipart(state: ProjectState, upload: UploadRow, parts: CompleteUploadInput['parts']): Promise<void> {
  const numbers = parts.map((p) => p.partNumber).sort((a, b) => a - b);
  if (numbers.length !== upload.partCount || numbers.some((n, i) => n !== i + 1)) {
    throw invalidRequest(`parts must list each of the upload's ${upload.partCount} part${upload.partCount === 1 ? '' : 's'} (partNumber 1 to ${upload.partCount}) once.`);
  }
  const uploaded = [...parts].sort((a, b) => a.partNumber - b.partNumber).map((p) => ({ partNumber: p.partNumber, etag: p.etag.replace(/^(W\/)?"|"$/g, '') }));
  try {
    await state.env.BUNDLES.resumeMultipartUpload(upload.blobKey, upload.uploadId).complete(uploaded);
  } catch (error) {
    const code = r2Code(error);
    // Completed by an earlier attempt that did not get to record it: verify what is there.
    if (code === 10024 && (await state.env.BUNDLES.head(upload.blobKey))) return;
    if (code === 10024) throw invalidRequest('The multipart upload no longer exists (aborted or expired); start a new upload.');
    if (code === 10025) throw invalidRequest('A part was not uploaded, or its etag is not the one its upload answered.');
    if (code === 10011) throw invalidRequest('A part other than the last is smaller than the part size; upload each part with the size upload init gave.');
    throw new ApiError('bad_gateway', 'The bundle storage did not complete the upload; retry in a moment.');
  }
}

function failUpload(state: ProjectState, upload: UploadRow, message: string): void {
  const { db } = state;
  db.update(uploads).set({ status: 'failed', completedAt: nowIso() }).where(eq(uploads.uploadId, upload.uploadId)).run();
  const step = changeJob(db, stepOf(db, upload.surveyId, 'UPLOAD'), { status: 'FAILED', message, failureClass: 'checksum_mismatch' });
  const survey = settleSurvey(db, upload.surveyId);
  if (survey) health.runFailed(state, survey, 'checksum_mismatch');
  state.notify([step, survey]);
}

function acceptBundle(state: ProjectState, upload: UploadRow, mimeType: string): void {
  const { db } = state;
  const now = nowIso();
  db.insert(bundles).values({
    id: upload.bundleId, sha256: upload.sha256, sizeBytes: upload.sizeBytes, mimeType, comment: null,
    blobKey: upload.blobKey, surveyId: upload.surveyId, uploadedAt: now,
  }).run();
  db.update(uploads).set({ status: 'verified', completedAt: now }).where(eq(uploads.uploadId, upload.uploadId)).run();
  const step = changeJob(db, stepOf(db, upload.surveyId, 'UPLOAD'), {
    status: 'COMPLETED', message: 'Bundle received and verified (SHA-256).', metadata: { bundleId: upload.bundleId, mimeType },
  });
  state.notify([step, settleSurvey(db, upload.surveyId)]);
}

// The project data plane: one SQLite database per project, inside its Durable Object.
// Documented in docs/storage.md; migrations in src/project/migrations (drizzle-kit, durable-sqlite).
import type { JsonObject } from '../lib/json';
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/**
 * Jobs: surveys (parents) and their steps, uploads, reports, instance start-up. `seq` grows with
 * every change of the row, so event streams can say which version they carry.
 */
export const jobs = sqliteTable('jobs', {
  id: text('id').primaryKey(),
  type: text('type').notNull(),
  status: text('status').notNull().$type<'PENDING' | 'RUNNING' | 'COMPLETED' | 'FAILED' | 'SKIPPED'>(),
  progress: integer('progress').notNull().default(0),
  message: text('message'),
  createdAt: text('created_at').notNull(),
  startedAt: text('started_at'),
  finishedAt: text('finished_at'),
  metadata: text('metadata', { mode: 'json' }).notNull().$type<JsonObject>(),
  parentId: text('parent_id'),
  stepType: text('step_type'),
  stepLabel: text('step_label'),
  tag: text('tag'),
  target: text('target'),
  notes: text('notes'),
  jsonTags: text('json_tags', { mode: 'json' }).$type<JsonObject>(),
  deletedAt: text('deleted_at'),
  supersedes: text('supersedes'),
  failureClass: text('failure_class'),
  seq: integer('seq').notNull().default(0),
  /** The last change of any kind (status, progress, message, metadata): how stale sweeps tell abandoned work. */
  updatedAt: text('updated_at'),
}, (t) => [
  index('jobs_created').on(t.createdAt, t.id),
  index('jobs_parent').on(t.parentId),
]);

/** Idempotency keys: the first answer to (operation, key), returned again for every repeat. */
export const idempotencyKeys = sqliteTable('idempotency_keys', {
  operation: text('operation').notNull(),
  key: text('key').notNull(),
  requestHash: text('request_hash').notNull(),
  answer: text('answer', { mode: 'json' }).notNull().$type<unknown>(),
  createdAt: text('created_at').notNull(),
}, (t) => [primaryKey({ columns: [t.operation, t.key] }), index('idempotency_keys_key').on(t.key)]);

/** Uploaded bundles. A bundle exists once its upload is verified (sha256 checked). */
export const bundles = sqliteTable('bundles', {
  id: text('id').primaryKey(),
  sha256: text('sha256').notNull(),
  sizeBytes: integer('size_bytes').notNull(),
  mimeType: text('mime_type').notNull(),
  comment: text('comment'),
  blobKey: text('blob_key').notNull(),
  surveyId: text('survey_id').notNull(),
  uploadedAt: text('uploaded_at').notNull(),
}, (t) => [index('bundles_uploaded').on(t.uploadedAt, t.id)]);

/** R2 multipart uploads in flight or done; `blobKey` is where the bundle lands. */
export const uploads = sqliteTable('uploads', {
  uploadId: text('upload_id').primaryKey(),
  blobKey: text('blob_key').notNull(),
  bundleId: text('bundle_id').notNull(),
  surveyId: text('survey_id').notNull(),
  stepId: text('step_id').notNull(),
  sha256: text('sha256').notNull(),
  sizeBytes: integer('size_bytes').notNull(),
  partSize: integer('part_size').notNull(),
  partCount: integer('part_count').notNull(),
  status: text('status').notNull(),
  idempotencyKey: text('idempotency_key'),
  createdAt: text('created_at').notNull(),
  completedAt: text('completed_at'),
}, (t) => [uniqueIndex('uploads_blob').on(t.blobKey), index('uploads_survey').on(t.surveyId)]);

/** The things scored: an application or component, by name. */
export const subjects = sqliteTable('subjects', {
  name: text('name').primaryKey(),
  firstSeen: text('first_seen').notNull(),
  lastSeen: text('last_seen').notNull(),
  criticality: text('criticality').notNull().default('unclassified'),
  latestSurveyId: text('latest_survey_id'),
});

/**
 * A subject's current contents: components (by package URL or name), cryptographic assets and
 * runtime observations, as found by the subject's latest completed survey.
 */
export const contents = sqliteTable('contents', {
  subject: text('subject').notNull(),
  kind: text('kind').notNull(),
  key: text('key').notNull(),
  surveyId: text('survey_id').notNull(),
  purl: text('purl'),
  name: text('name').notNull(),
  version: text('version'),
  data: text('data', { mode: 'json' }).notNull().$type<JsonObject>(),
}, (t) => [primaryKey({ columns: [t.subject, t.kind, t.key] }), index('contents_survey').on(t.surveyId), index('contents_purl').on(t.purl)]);

/**
 * What a running analysis has found so far, by survey: the analysis consumer writes here in
 * batches, and the finished analysis swaps it into `contents` in one transaction (src/project/analysis-store.ts).
 * Cleared when an analysis (re)starts, so a retried message never counts an item twice.
 */
export const contentsStaging = sqliteTable('contents_staging', {
  surveyId: text('survey_id').notNull(),
  kind: text('kind').notNull(),
  key: text('key').notNull(),
  purl: text('purl'),
  name: text('name').notNull(),
  version: text('version'),
  data: text('data', { mode: 'json' }).notNull().$type<JsonObject>(),
}, (t) => [primaryKey({ columns: [t.surveyId, t.kind, t.key] })]);

/** Data health: one run per survey, its outcome and completeness against the subject's previous run. */
export const healthRuns = sqliteTable('health_runs', {
  id: text('id').primaryKey(),
  subject: text('subject'),
  surveyType: text('survey_type').notNull(),
  status: text('status').notNull(),
  outcome: text('outcome'),
  failureClass: text('failure_class'),
  ciRunId: text('ci_run_id'),
  tag: text('tag'),
  uploadId: text('upload_id'),
  idempotencyKey: text('idempotency_key'),
  components: integer('components'),
  cryptoAssets: integer('crypto_assets'),
  observations: integer('observations'),
  previousRunId: text('previous_run_id'),
  previousComponents: integer('previous_components'),
  previousCryptoAssets: integer('previous_crypto_assets'),
  previousObservations: integer('previous_observations'),
  createdAt: text('created_at').notNull(),
  finishedAt: text('finished_at'),
  deletedAt: text('deleted_at'),
}, (t) => [index('health_runs_created').on(t.createdAt, t.id), index('health_runs_subject').on(t.subject, t.createdAt), index('health_runs_ci').on(t.ciRunId), index('health_runs_tag').on(t.tag)]);

/** Facts about the project itself (its id, when its storage was set up). */
export const settings = sqliteTable('settings', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
});

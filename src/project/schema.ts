// The project data plane: one SQLite database per project, inside its Durable Object.
// Documented in docs/storage.md; migrations in src/project/migrations (drizzle-kit, durable-sqlite).
import type { JsonObject } from '../lib/json';
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/**
 * Jobs: surveys (parents) and their steps, uploads, reports, instance start-up. `seq` grows with
 * every change of the row, so event streams can say which version they carry.
 */
export const jobs = sqliteTable('jobs', {
  id: text('id').primaryKey(),
  type: text('type').notNull(),
  status: text('status').notNull().$type<'PENDING' | 'RUNNING' | 'COMPLETED' | 'FAILED' | 'SKIPPED'>(),
  /** 0 to 100, any number: SQLite's INTEGER affinity keeps a fractional value as it is. */
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
}, (t) => [
  index('bundles_uploaded').on(t.uploadedAt, t.id),
  // An unchanged bundle's re-survey finds the earlier surveys of the same bytes (src/project/analysis-reuse.ts).
  index('bundles_sha256').on(t.sha256, t.surveyId),
]);

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
 * What analyses found, by survey and attempt: the analysis consumer writes here in batches while it
 * reads a bundle, and nobody reads these rows until `subject_contents` points at them. A retried
 * attempt writes under a new attempt number, so a restart never sees half of an earlier one.
 */
export const contents = sqliteTable('contents', {
  surveyId: text('survey_id').notNull(),
  attempt: integer('attempt').notNull(),
  kind: text('kind').notNull(),
  key: text('key').notNull(),
  purl: text('purl'),
  name: text('name').notNull(),
  version: text('version'),
  data: text('data', { mode: 'json' }).notNull().$type<JsonObject>(),
}, (t) => [primaryKey({ columns: [t.surveyId, t.attempt, t.kind, t.key] }), index('contents_purl').on(t.purl)]);

/**
 * A layered set of content rows (docs/decisions.md, "A changed bundle writes what changed"): the set
 * (survey, attempt, kind) is its own rows (new or changed keys) over the rows of its base, a full set
 * of an earlier analysis, but for the base's keys it has a row of or lists in `content_removals`.
 * Readers see the sets through the `content_rows` view (migration 0012). WITHOUT ROWID in the
 * migration: the view's search of one set then meets at most one layer, and pages in key order.
 */
export const contentLayers = sqliteTable('content_layers', {
  surveyId: text('survey_id').notNull(),
  attempt: integer('attempt').notNull(),
  kind: text('kind').notNull(),
  baseSurveyId: text('base_survey_id').notNull(),
  baseAttempt: integer('base_attempt').notNull(),
}, (t) => [primaryKey({ columns: [t.surveyId, t.attempt, t.kind] }), index('content_layers_base').on(t.baseSurveyId, t.baseAttempt, t.kind)]);

/** The base's keys a layered set does not hold (the bundle no longer lists them). WITHOUT ROWID in the migration. */
export const contentRemovals = sqliteTable('content_removals', {
  surveyId: text('survey_id').notNull(),
  attempt: integer('attempt').notNull(),
  kind: text('kind').notNull(),
  key: text('key').notNull(),
}, (t) => [primaryKey({ columns: [t.surveyId, t.attempt, t.kind, t.key] })]);

/**
 * A subject's current contents of one kind: which survey's rows (and which attempt of it) they are.
 * Finishing an analysis flips these pointers in one small write; the rows they no longer point at
 * are deleted afterwards in slices (`content_purges`).
 */
export const subjectContents = sqliteTable('subject_contents', {
  subject: text('subject').notNull(),
  kind: text('kind').notNull(),
  surveyId: text('survey_id').notNull(),
  attempt: integer('attempt').notNull(),
}, (t) => [primaryKey({ columns: [t.subject, t.kind] }), index('subject_contents_survey').on(t.surveyId, t.attempt)]);

/** Content rows nothing points at any more, deleted a slice at a time by the object's alarm. */
export const contentPurges = sqliteTable('content_purges', {
  surveyId: text('survey_id').notNull(),
  attempt: integer('attempt').notNull(),
  /** One kind, or `*` for every kind of that attempt. */
  kind: text('kind').notNull(),
  queuedAt: text('queued_at').notNull(),
}, (t) => [primaryKey({ columns: [t.surveyId, t.attempt, t.kind] })]);

/**
 * The lease of a step the service runs (a survey's analysis): the attempt working on it renews it
 * while it works; when it lapses the object's alarm sends the work again, up to a number of starts.
 */
export const stepLeases = sqliteTable('step_leases', {
  stepId: text('step_id').primaryKey(),
  surveyId: text('survey_id').notNull(),
  /** How many attempts have started. */
  attempts: integer('attempts').notNull().default(0),
  /** The attempt holding the lease; null while the work waits in the queue. */
  holder: integer('holder'),
  /** When the lease lapses (ms since the epoch). */
  expiresAt: integer('expires_at').notNull(),
  /** Times the object sent the work again after a lapse. */
  resends: integer('resends').notNull().default(0),
  /** The queue message that (re)starts the work. */
  message: text('message', { mode: 'json' }).notNull().$type<{ projectId: string; surveyId: string; bundleId: string; blobKey: string; phase?: 'report' }>(),
  /** Rows the holding attempt has stored, by content kind. */
  counts: text('counts', { mode: 'json' }).notNull().$type<Record<string, number>>(),
}, (t) => [index('step_leases_expiry').on(t.expiresAt)]);

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

/**
 * A survey's report (one per REPORT step; the report's id is the step's id): what it was built from,
 * its headline figures and sections, and where its full document lies in R2.
 */
export const reports = sqliteTable('reports', {
  id: text('id').primaryKey(),
  surveyId: text('survey_id').notNull(),
  /** `pqc-inventory`, `cbom` or `composition`. */
  type: text('type').notNull(),
  subject: text('subject').notNull(),
  /** The analysis the report was built from: its survey and attempt (another survey's when regenerated with skipAnalyze). */
  sourceSurveyId: text('source_survey_id').notNull(),
  sourceAttempt: integer('source_attempt').notNull(),
  producedAt: text('produced_at').notNull(),
  blobKey: text('blob_key').notNull(),
  /** Headline figures, sections (with counts) and the non-list sections, as the summary answers them. */
  summary: text('summary', { mode: 'json' }).notNull().$type<JsonObject>(),
  /** Versions of every input: analysis logic, classification table, vulnerability data, bundle. */
  provenance: text('provenance', { mode: 'json' }).notNull().$type<JsonObject>(),
  /** SHA-256 of the source's advisory findings when the report was built (the rows a re-match changes in place); null past a cap. */
  findingsDigest: text('findings_digest'),
}, (t) => [index('reports_survey').on(t.surveyId), index('reports_subject').on(t.subject, t.type, t.producedAt)]);

/**
 * A report's entries, indexed so sections, search and compare answer without loading the document.
 * `position` orders entries inside their section; `key` identifies a finding across reports.
 */
export const reportEntries = sqliteTable('report_entries', {
  reportId: text('report_id').notNull(),
  section: text('section').notNull(),
  position: integer('position').notNull(),
  key: text('key').notNull(),
  purl: text('purl'),
  name: text('name').notNull(),
  explanation: text('explanation'),
  data: text('data', { mode: 'json' }).notNull().$type<JsonObject>(),
  /** Every name the entry is searched by, case-folded (src/reports/search-terms.ts); null for entries stored before it. */
  terms: text('terms'),
}, (t) => [primaryKey({ columns: [t.reportId, t.section, t.position] }), index('report_entries_key').on(t.reportId, t.key)]);

/**
 * The latest rendered document of a report in each format (PDF, XLSX, PPTX, HTML, CSV), with the
 * provenance of that rendering: rendering again replaces the row and the R2 object.
 */
export const reportDocuments = sqliteTable('report_documents', {
  reportId: text('report_id').notNull(),
  format: text('format').notNull(),
  /** The render job (a REPORT step labelled `render:<format>` under the report's job) that wrote it. */
  jobId: text('job_id').notNull(),
  blobKey: text('blob_key').notNull(),
  bytes: integer('bytes').notNull(),
  renderedAt: text('rendered_at').notNull(),
  durationMs: integer('duration_ms').notNull(),
  /** The version of the format's template, compared by stale projections. */
  templateVersion: text('template_version').notNull(),
  /** The version of the analysis logic the report came from, compared by stale projections. */
  analysisVersion: text('analysis_version').notNull(),
  provenance: text('provenance', { mode: 'json' }).notNull().$type<JsonObject>(),
}, (t) => [primaryKey({ columns: [t.reportId, t.format] })]);

/**
 * Render jobs waiting for or held by the render consumer. Like an analysis lease: a message lost with
 * a restart, or a consumer that died, leaves a row whose time lapses; the alarm sends it again.
 */
export const renderWork = sqliteTable('render_work', {
  jobId: text('job_id').primaryKey(),
  reportId: text('report_id').notNull(),
  format: text('format').notNull(),
  /** Deliveries the consumer started. */
  attempts: integer('attempts').notNull().default(0),
  expiresAt: integer('expires_at').notNull(),
}, (t) => [index('render_work_expires').on(t.expiresAt)]);

/**
 * Portfolios (spec 4.1): named sets of subjects and packages scored together. The built-in one
 * (`is_implicit`) holds every subject. `generation` grows with every change that needs rescoring;
 * a scoring result is kept only for the generation it was computed for.
 */
export const portfolios = sqliteTable('portfolios', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  isImplicit: integer('is_implicit', { mode: 'boolean' }).notNull().default(false),
  settings: text('settings', { mode: 'json' }).notNull().$type<JsonObject>(),
  /** `unscored` until first scored, `rescoring` after a membership change or a rating, else `scored`. */
  status: text('status').notNull().$type<'unscored' | 'rescoring' | 'scored'>(),
  generation: integer('generation').notNull().default(1),
  createdAt: text('created_at').notNull(),
  updatedAt: text('updated_at').notNull(),
  deletedAt: text('deleted_at'),
});

/** A portfolio's members: subjects by name, packages by package URL without a version. */
export const portfolioMembers = sqliteTable('portfolio_members', {
  portfolioId: text('portfolio_id').notNull(),
  memberType: text('member_type').notNull().$type<'subject' | 'package'>(),
  value: text('value').notNull(),
  addedAt: text('added_at').notNull(),
}, (t) => [primaryKey({ columns: [t.portfolioId, t.memberType, t.value] })]);

/** Criticality ratings of subjects (spec 4.2): a history, never overwritten. */
export const criticalityRatings = sqliteTable('criticality_ratings', {
  id: text('id').primaryKey(),
  subject: text('subject').notNull(),
  value: text('value').notNull(),
  priorValue: text('prior_value').notNull(),
  rater: text('rater', { mode: 'json' }).notNull().$type<JsonObject>(),
  rationale: text('rationale'),
  ratedAt: text('rated_at').notNull(),
}, (t) => [index('criticality_ratings_subject').on(t.subject, t.ratedAt)]);

/**
 * Every current finding of every subject as the scoring model weighs it (src/scoring/findings.ts):
 * its axis, penalty and the fix row that removes it. Rebuilt per subject when its contents change.
 */
export const scoredFindings = sqliteTable('scored_findings', {
  subject: text('subject').notNull(),
  /** Unique within the subject (a finding key can repeat: one advisory on two versions of a package). */
  id: text('id').notNull(),
  axis: text('axis').notNull(),
  findingKey: text('finding_key').notNull(),
  itemKey: text('item_key'),
  penalty: real('penalty').notNull(),
  detail: text('detail', { mode: 'json' }).notNull().$type<JsonObject>(),
}, (t) => [primaryKey({ columns: [t.subject, t.id] }), index('scored_findings_item').on(t.itemKey)]);

/** A subject's penalties per axis (sums of its scored findings) and when they were computed. */
export const subjectScores = sqliteTable('subject_scores', {
  subject: text('subject').primaryKey(),
  pqc: real('pqc').notNull(),
  vuln: real('vuln').notNull(),
  agility: real('agility').notNull(),
  findings: integer('findings').notNull(),
  /** Set when the subject's contents or its vulnerability matches changed since: the next scoring refreshes it. */
  stale: integer('stale', { mode: 'boolean' }).notNull().default(false),
  asOf: text('as_of').notNull(),
  computedAt: text('computed_at').notNull(),
});

/**
 * A portfolio's latest scoring: the state answer (scores, bands, breakdown), the model simulation
 * works from, and which build of `portfolio_fixes` is current.
 */
export const portfolioResults = sqliteTable('portfolio_results', {
  portfolioId: text('portfolio_id').primaryKey(),
  generation: integer('generation').notNull(),
  build: text('build').notNull(),
  computedAt: text('computed_at').notNull(),
  asOf: text('as_of').notNull(),
  state: text('state', { mode: 'json' }).notNull().$type<JsonObject>(),
  model: text('model', { mode: 'json' }).notNull().$type<JsonObject>(),
  rows: integer('rows').notNull(),
});

/**
 * Ranked fix rows of one scoring build of a portfolio. A build is written in slices, then made current
 * in one write; the rows of the build it replaced are deleted afterwards.
 */
export const portfolioFixes = sqliteTable('portfolio_fixes', {
  build: text('build').notNull(),
  rank: integer('rank').notNull(),
  itemKey: text('item_key').notNull(),
  gain: real('gain').notNull(),
  /** The row as rank answers it, and its summary form (JSON text, answered as it is). */
  row: text('row').notNull(),
  summary: text('summary').notNull(),
  /** Which findings of which subjects it removes (src/scoring/portfolio.ts `Effect`). */
  effects: text('effects').notNull(),
  /**
   * 1 when `row` and `effects` are too large for one stored row (SQLite here holds at most 2 MB in
   * one): they are then empty here and kept in `portfolio_fix_parts`.
   */
  parted: integer('parted').notNull().default(0),
}, (t) => [primaryKey({ columns: [t.build, t.rank] }), uniqueIndex('portfolio_fixes_item').on(t.build, t.itemKey)]);

/** The `row` and `effects` text of a parted fix row, in consecutive pieces. */
export const portfolioFixParts = sqliteTable('portfolio_fix_parts', {
  build: text('build').notNull(),
  itemKey: text('item_key').notNull(),
  /** `row` or `effects`. */
  field: text('field').notNull(),
  part: integer('part').notNull(),
  text: text('text').notNull(),
}, (t) => [primaryKey({ columns: [t.build, t.itemKey, t.field, t.part] })]);

/** Score history (spec 2): one row per axis whose score moved, with the band and the cause. */
export const scoreHistory = sqliteTable('score_history', {
  id: text('id').primaryKey(),
  portfolioId: text('portfolio_id').notNull(),
  axis: text('axis').notNull(),
  score: real('score').notNull(),
  band: text('band').notNull(),
  cause: text('cause').notNull(),
  at: text('at').notNull(),
}, (t) => [index('score_history_portfolio').on(t.portfolioId, t.at)]);

/**
 * Scoring waiting for or held by the scoring consumer, per portfolio: like a render job, a lost message
 * leaves a row whose time lapses and the alarm sends it again.
 */
export const scoringWork = sqliteTable('scoring_work', {
  portfolioId: text('portfolio_id').primaryKey(),
  generation: integer('generation').notNull(),
  cause: text('cause').notNull(),
  attempts: integer('attempts').notNull().default(0),
  expiresAt: integer('expires_at').notNull(),
  /** Asked for again while an attempt was running: it is sent once more when that attempt finishes. */
  again: integer('again', { mode: 'boolean' }).notNull().default(false),
  /**
   * The run that began last: only its result is kept. The attempt count alone could not tell runs apart,
   * as it starts again from 0 for work asked for again (a run of the earlier work still going).
   */
  run: text('run'),
}, (t) => [index('scoring_work_expires').on(t.expiresAt)]);

/**
 * What a portfolio's daily snapshot saw (its state, top ranked fixes and the previous snapshot's
 * scores): the posture report is built from it, and rebuilt from it by regenerate ("from the same
 * data as of the same date").
 */
export const portfolioSnapshots = sqliteTable('portfolio_snapshots', {
  id: text('id').primaryKey(),
  portfolioId: text('portfolio_id').notNull(),
  snapshotJobId: text('snapshot_job_id').notNull(),
  asOf: text('as_of').notNull(),
  state: text('state', { mode: 'json' }).notNull().$type<JsonObject>(),
  fixes: text('fixes', { mode: 'json' }).notNull().$type<JsonObject[]>(),
  previous: text('previous', { mode: 'json' }).$type<JsonObject>(),
  createdAt: text('created_at').notNull(),
}, (t) => [index('portfolio_snapshots_portfolio').on(t.portfolioId, t.asOf)]);

/**
 * Decisions about findings (triage, src/triage/decision.ts): every change is a new version, so the
 * history is read, never overwritten. A decision's current version is its highest; a deleted one's is
 * `withdrawn`. The scope columns are what matching reads: an advisory (or an alias) in a package (its
 * fix row's key) at a version or in a VERS range, or an algorithm or asset; optionally one subject.
 */
export const decisions = sqliteTable('decisions', {
  id: text('id').notNull(),
  version: integer('version').notNull(),
  findingType: text('finding_type').notNull().$type<'vulnerability' | 'crypto'>(),
  advisoryId: text('advisory_id'),
  package: text('package'),
  packageVersion: text('package_version'),
  versionRange: text('version_range'),
  algorithm: text('algorithm'),
  asset: text('asset'),
  subject: text('subject'),
  state: text('state').notNull(),
  justification: text('justification'),
  response: text('response', { mode: 'json' }).notNull().$type<string[]>(),
  detail: text('detail'),
  expires: text('expires'),
  /** Where a decision came from when not decided here: a VEX document's author, timestamp and id. */
  source: text('source', { mode: 'json' }).$type<JsonObject>(),
  decidedBy: text('decided_by', { mode: 'json' }).notNull().$type<JsonObject>(),
  decidedAt: text('decided_at').notNull(),
}, (t) => [
  primaryKey({ columns: [t.id, t.version] }),
  index('decisions_advisory').on(t.advisoryId),
  index('decisions_algorithm').on(t.algorithm),
]);

/**
 * Notification destinations (src/notify): where a project's alerts go. The URL (a Slack or Teams URL
 * is a secret) and the webhook signing secrets are sealed with NOTIFY_KEY (src/notify/sealing.ts);
 * `urlHint` is what reads show. Deliveries are paced per destination (`nextSlotAt`), and a queue
 * message is pending for it while `kickAt` is set (src/project/notify-store.ts).
 */
export const notifyDestinations = sqliteTable('notify_destinations', {
  id: text('id').primaryKey(),
  kind: text('kind').notNull().$type<'webhook' | 'slack' | 'teams' | 'email'>(),
  name: text('name').notNull(),
  /** Sealed URL (webhook, slack, teams); null for email. */
  urlSealed: text('url_sealed'),
  urlHint: text('url_hint'),
  /** Email recipients (JSON array of addresses). */
  recipients: text('recipients', { mode: 'json' }).$type<string[]>(),
  /** Sealed `whsec_…` secret (webhook only); the previous one stays valid until `previousSecretUntil`. */
  secretSealed: text('secret_sealed'),
  previousSecretSealed: text('previous_secret_sealed'),
  previousSecretUntil: text('previous_secret_until'),
  createdAt: text('created_at').notNull(),
  createdBy: text('created_by', { mode: 'json' }).notNull().$type<JsonObject>(),
  updatedAt: text('updated_at').notNull(),
  disabledAt: text('disabled_at'),
  disabledReason: text('disabled_reason'),
  /** The first failed attempt since the last delivered one (null while healthy). */
  failingSince: text('failing_since'),
  nextSlotAt: integer('next_slot_at').notNull().default(0),
  kickAt: integer('kick_at'),
});

/** Alert rules: which events go to which destinations, narrowed by subject, portfolio, severity or band. */
export const notifyRules = sqliteTable('notify_rules', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  events: text('events', { mode: 'json' }).notNull().$type<string[]>(),
  destinationIds: text('destination_ids', { mode: 'json' }).notNull().$type<string[]>(),
  subjects: text('subjects', { mode: 'json' }).$type<string[]>(),
  portfolioIds: text('portfolio_ids', { mode: 'json' }).$type<string[]>(),
  minSeverity: text('min_severity'),
  minBand: text('min_band'),
  scoreDrop: integer('score_drop'),
  staleDays: integer('stale_days'),
  enabled: integer('enabled', { mode: 'boolean' }).notNull().default(true),
  createdAt: text('created_at').notNull(),
  updatedAt: text('updated_at').notNull(),
});

/**
 * Events raised (a survey finished, a band changed, ...): written first with what they are about
 * (`ref`), then built and matched against the rules by the object's alarm, so the work that raised
 * them never waits. The id is deterministic (`survey.completed:{surveyId}`): an event is raised once.
 */
export const notifyEvents = sqliteTable('notify_events', {
  id: text('id').primaryKey(),
  type: text('type').notNull(),
  occurredAt: text('occurred_at').notNull(),
  ref: text('ref', { mode: 'json' }).notNull().$type<JsonObject>(),
  builtAt: text('built_at'),
}, (t) => [index('notify_events_unbuilt').on(t.builtAt, t.occurredAt)]);

/** One message for one destination: its id is the `webhook-id`, stable across retries. */
export const notifyOutbox = sqliteTable('notify_outbox', {
  id: text('id').primaryKey(),
  destinationId: text('destination_id').notNull(),
  eventId: text('event_id').notNull(),
  eventType: text('event_type').notNull(),
  payload: text('payload').notNull(),
  createdAt: integer('created_at').notNull(),
  attempts: integer('attempts').notNull().default(0),
  nextAttemptAt: integer('next_attempt_at').notNull(),
  leasedUntil: integer('leased_until'),
  state: text('state').notNull().$type<'pending' | 'delivered' | 'dropped'>(),
  finishedAt: integer('finished_at'),
}, (t) => [
  uniqueIndex('notify_outbox_event').on(t.destinationId, t.eventId),
  index('notify_outbox_due').on(t.destinationId, t.state, t.nextAttemptAt),
]);

/** Every delivery attempt, per destination: readable through the API. */
export const notifyDeliveries = sqliteTable('notify_deliveries', {
  id: text('id').primaryKey(),
  destinationId: text('destination_id').notNull(),
  messageIds: text('message_ids', { mode: 'json' }).notNull().$type<string[]>(),
  eventType: text('event_type').notNull(),
  attempt: integer('attempt').notNull(),
  at: text('at').notNull(),
  statusCode: integer('status_code'),
  durationMs: integer('duration_ms').notNull(),
  answerHead: text('answer_head'),
  error: text('error'),
  delivered: integer('delivered', { mode: 'boolean' }).notNull(),
}, (t) => [index('notify_deliveries_destination').on(t.destinationId, t.at)]);

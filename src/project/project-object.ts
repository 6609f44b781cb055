// The project Durable Object: one per project (named by its id), holding the project's data plane
// in its own SQLite database through drizzle, owning job state and fanning job updates out to every
// open stream. Handlers and queue consumers call its typed RPC methods (through `src/project/client.ts`),
// never its SQL. An ApiError is answered as a failure value (see `src/project/errors.ts`), so callers
// get the same ApiError back.
import { DurableObject } from 'cloudflare:workers';
import { drizzle } from 'drizzle-orm/durable-sqlite';
import { migrate } from 'drizzle-orm/durable-sqlite/migrator';
import { eq } from 'drizzle-orm';
import type { Env } from '../env';
import { ApiError } from '../lib/errors';
import { rpcFailure, starting, UNPROVISIONED } from './errors';
import { JobHub } from './events';
import { Idempotency } from './idempotency';
import type { ProjectState } from './state';
import { changeJob, createJob, findJob, isSurvey, jobWithSteps, type JobAnswer, type JobRow, type ProjectDb } from './jobs';
import migrations from './migrations/migrations';
import * as schema from './schema';
import { settings } from './schema';
import * as surveys from './surveys';
import * as decisions from './decisions';
import { importVex } from './vex-import';
import { vexFindings } from './vex-export';
import * as notifications from './notify-store';
import { ABANDONED_AFTER_MS, sweepAbandoned } from './sweep';
import { abortStartedUploads, CallBudget, deleteUnder, ERASE_SLICE_KEYS, eraseExpiredSurveys, forgetRaters, projectPrefix, R2_DELETE_BATCH } from './erasure';
import * as uploads from './uploads';
import * as bundleList from './bundle-list';
import * as analysis from './analysis-store';
import * as reuse from './analysis-reuse';
import * as health from './health';
import { resolveRef } from './health-resolve';
import { expireLeases } from './leases';
import { purgeSlice } from './purges';
import { layerBaseKeys } from './content-layers';
import type { ContentKind } from '../analysis/types';
import * as reportBuild from './report-build';
import * as reportRead from './reports';
import { ciSurveyData } from './ci-findings';
import * as documents from './documents';
import * as portfolios from './portfolios';
import * as posture from './posture';
import * as rematch from './rematch-store';
import type { PurlRange } from '../vulndb/changes';
import { runBackfills } from './backfill';
import { runDevSql, type DevSqlAnswer, type DevSqlInput } from './dev-sql';
import { tableFigures, type TableFigures } from './store-limit';
import * as scoring from './scoring-store';
import type { DocumentFormat } from '../render/model';
import type { AnalysisMessage } from './jobs';
import type { JsonObject } from '../lib/json';
import type { Axis, Criticality } from '../scoring/model';

// Tests name the state the object hands its modules from here; the modules take it from ./state.
export type { ProjectState } from './state';

declare module '../env' {
  interface Env {
    /** One project object per project, named by the project's id (src/project/client.ts). */
    PROJECT: DurableObjectNamespace<ProjectObject>;
  }
}

/** Pause between two slices of a large deletion, so requests waiting for the object go first. */
const PURGE_PAUSE_MS = 5;

/** A failed start-up is tried again by the next call at most this often. */
const START_RETRY_MS = 1_000;

/** Answered by every data operation of a project whose erasure began (src/control/erasures.ts). */
const PURGED = 'This project was purged at the end of its retention period; its data is being erased.';

/** What one `eraseSlice` call did: `done` once the storage itself is erased. */
export interface ErasureProgress {
  step: 'close' | 'objects' | 'storage';
  /** R2 objects deleted by this call. */
  deleted: number;
  done: boolean;
}

export class ProjectObject extends DurableObject<Env> {
  private readonly db: ProjectDb;
  private readonly hub = new JobHub();
  private readonly idempotency: Idempotency;
  private wakeRequested = false;
  /** The schema exists (migrations applied). A store never set up, or erased, has none. */
  private migrated = false;
  /** `deleteAll` ran in this instance: the project was purged and its storage erased. */
  private erased = false;
  /** The project's erasure began (`settings.erasingSince`); read once per instance. */
  private closing: boolean | undefined;
  /** When the alarm next looks at deleted surveys whose retention may have ended (ms; 0: at the next ring). */
  private surveyRetentionAt = 0;
  /** This instance's start-up failed (when, and why): data operations answer 503 `starting` until it succeeds. */
  private startFailure: { at: number; error: string } | null = null;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.db = drizzle(ctx.storage, { schema });
    this.idempotency = new Idempotency(this.db);
    void ctx.blockConcurrencyWhile(() => this.start());
  }

  /**
   * The instance's start-up: an existing schema is brought up to date (on first use and after every
   * deploy that adds a migration; cheap when up to date). A store without a schema (never set up, or
   * erased after a purge) stays empty until `provision` sets it up, so looking at an erased project's
   * object never writes anything back. A failure is kept, not thrown: thrown, it would reset the
   * object and every caller would see the reset (or, when a reset meets a held gate, no answer at all).
   */
  private async start(): Promise<void> {
    try {
      const schemaExists = this.ctx.storage.sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'").toArray().length > 0;
      if (schemaExists) await this.migrate();
      this.startFailure = null;
    } catch (error) {
      this.startFailure = { at: Date.now(), error: String(error) };
      console.error(JSON.stringify({ level: 'error', message: 'project object start-up failed; data operations answer 503 starting until it succeeds', error: String(error) }));
    }
  }

  /** 503 `starting` while the start-up has not succeeded; tried again at most every START_RETRY_MS. */
  private async started(): Promise<void> {
    if (!this.startFailure) return;
    if (Date.now() - this.startFailure.at >= START_RETRY_MS) await this.start();
    if (this.startFailure) throw starting();
  }

  private async migrate(): Promise<void> {
    await migrate(this.db, migrations);
    this.migrated = true;
  }

  private setting(key: string): string | undefined {
    if (!this.migrated) return undefined;
    return this.db.select().from(settings).where(eq(settings.key, key)).get()?.value;
  }

  /** Whether the project's erasure began: it answers nothing any more and its alarm stays silent. */
  private isClosing(): boolean {
    if (this.erased) return true;
    this.closing ??= this.setting('erasingSince') !== undefined;
    return this.closing;
  }

  /** The project's id once its storage is set up; neither changes after that, so it is read once per instance. */
  private readyProjectId: string | undefined;

  private state(): ProjectState {
    if (this.isClosing()) throw new ApiError('not_found', PURGED);
    const projectId = this.readyProjectId ?? this.setting('projectId');
    // Never set up: the caller (src/project/client.ts) starts the set-up and answers 503 provisioning.
    if (!projectId) throw new ApiError('provisioning', UNPROVISIONED);
    if (!this.readyProjectId) {
      if (this.setting('readyAt') === undefined) throw new ApiError('provisioning', 'The project\'s data is still being set up; retry in a few seconds.');
      this.readyProjectId = projectId;
    }
    return {
      env: this.env, db: this.db, sql: this.ctx.storage.sql, projectId, idempotency: this.idempotency, notify: (rows) => this.notify(rows),
      wake: (at) => this.sweepBy(at), wakeSoon: () => void (this.wakeRequested = true),
    };
  }

  private notify(rows: (JobRow | null | undefined)[]): void {
    const seen = new Set<string>();
    for (const row of rows) {
      if (!row || seen.has(row.id)) continue;
      seen.add(row.id);
      this.hub.broadcast(jobWithSteps(this.db, row));
      this.surveyFinished(row);
      if (row.parentId && !seen.has(row.parentId)) {
        const survey = findJob(this.db, row.parentId);
        if (survey) {
          seen.add(survey.id);
          this.hub.broadcast(jobWithSteps(this.db, survey));
          this.surveyFinished(survey);
        }
      }
    }
  }

  /** A survey that finished raises its event (once: the event's id is the survey's), built by the alarm. */
  private surveyFinished(survey: JobRow): void {
    if (!isSurvey(survey) || (survey.status !== 'COMPLETED' && survey.status !== 'FAILED')) return;
    const type = survey.status === 'COMPLETED' ? 'survey.completed' : 'survey.failed';
    try {
      notifications.raiseEvent(this.state(), { id: `${type}:${survey.id}`, type, ref: { survey_id: survey.id }, occurredAt: survey.finishedAt ?? undefined });
    } catch (error) {
      // Telling people must never fail the survey: the event is lost, and the log says so.
      console.error(JSON.stringify({ level: 'error', message: 'notifications: raising a survey event failed', surveyId: survey.id, error: String(error) }));
    }
  }

  /** Runs an RPC body; an ApiError is answered as a failure value, anything else is thrown. */
  private async rpc<T>(body: (state: ProjectState) => T | Promise<T>): Promise<T> {
    try {
      await this.started();
      const state = this.state();
      return await body(state);
    } catch (error) {
      // The Worker side (`withProject`) turns it back into the ApiError; typed as T for the stub.
      if (error instanceof ApiError) return rpcFailure(error) as T;
      throw error;
    } finally {
      if (this.wakeRequested) {
        this.wakeRequested = false;
        await this.sweepBy(Date.now());
      }
    }
  }

  // ---- provisioning (INSTANCE_STARTUP) ----

  /**
   * Starts setting up a project's storage: records an INSTANCE_STARTUP job and finishes it from an
   * alarm; until then data operations answer 503 `provisioning`. Idempotent.
   */
  async provision(projectId: string): Promise<string> {
    if (this.isClosing()) throw new Error(PURGED);
    if (!this.migrated) {
      // A purged project (unknown to the control plane) is never set up again.
      const known = await this.env.DB.prepare('SELECT 1 AS known FROM projects WHERE id = ?1').bind(projectId).first();
      if (!known) throw new Error(`No project ${projectId} exists; its storage is not set up.`);
      await this.migrate();
    }
    const existing = this.setting('startupJobId');
    if (existing) return existing;
    const job = createJob(this.db, 'INSTANCE_STARTUP', { status: 'RUNNING', message: 'Setting up the project\'s storage.', metadata: { projectId } });
    this.db.insert(settings).values([{ key: 'projectId', value: projectId }, { key: 'startupJobId', value: job.id }]).onConflictDoNothing().run();
    await this.ctx.storage.setAlarm(Date.now());
    this.notify([job]);
    return job.id;
  }

  /**
   * The alarm finishes the start-up, deletes a slice of rows nothing points at, sends again the work
   * whose lease lapsed, sweeps abandoned surveys, and rings again for whichever comes next. One
   * bounded slice per ring: other requests are answered in between.
   */
  override async alarm(): Promise<void> {
    if (this.startFailure) {
      await this.started().catch(() => undefined);
      // Still failing: ring again soon rather than lose what the alarm keeps going.
      if (this.startFailure) return this.ctx.storage.setAlarm(Date.now() + 5_000);
    }
    if (this.isClosing()) return;
    const jobId = this.setting('startupJobId');
    if (!jobId) return;
    if (!this.setting('readyAt')) {
      this.db.insert(settings).values({ key: 'readyAt', value: new Date().toISOString() }).onConflictDoNothing().run();
      const done = changeJob(this.db, findJob(this.db, jobId)!, { status: 'COMPLETED', message: 'The project\'s storage is ready.' });
      this.notify([done]);
    }
    const state = this.state();
    portfolios.ensureImplicit(state);
    await scoring.scoreUnasked(state);
    const morePurges = purgeSlice(state);
    const times = [
      await expireLeases(state), await documents.expireRenders(state), await scoring.expireScoring(state), await posture.resumePostures(state), runBackfills(state), await sweepAbandoned(state),
      await notifications.notifyAlarm(state),
    ];
    // Deleted surveys whose retention ended lose their files (src/project/erasure.ts); looked at only
    // when one may be due, not on every ring of a busy alarm.
    if (Date.now() >= this.surveyRetentionAt) {
      this.surveyRetentionAt = await eraseExpiredSurveys(state).then((next) => next ?? Infinity, (error) => {
        console.error(JSON.stringify({ level: 'error', message: 'survey retention: erasing files failed; retried in an hour', projectId: state.projectId, error: String(error) }));
        return Date.now() + 60 * 60_000;
      });
    }
    if (this.surveyRetentionAt !== Infinity) times.push(this.surveyRetentionAt);
    // Deletions left, or queued just now by a lapsed lease.
    if (morePurges || this.wakeRequested) times.push(Date.now() + PURGE_PAUSE_MS);
    this.wakeRequested = false;
    const next = times.filter((t): t is number => t !== null).sort((a, b) => a - b)[0];
    // Not setAlarm: a request answered while this ring awaited (an event raised, a purge queued) may
    // have asked for an earlier one, which stays. The ring running is no longer set (getAlarm is null).
    if (next !== undefined) await this.sweepBy(next);
  }

  /** Rings the alarm no later than `at` (the sweep of surveys that may be abandoned by then). */
  private async sweepBy(at = Date.now() + ABANDONED_AFTER_MS): Promise<void> {
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > at) await this.ctx.storage.setAlarm(at);
  }

  /** The store's size and each table's rows and bytes (`npm run bench:growth`, through a development route). */
  async storeFigures(): Promise<{ databaseSize: number; tables: Record<string, TableFigures> }> {
    const sql = this.ctx.storage.sql;
    return { databaseSize: sql.databaseSize, tables: await tableFigures(async (query) => sql.exec(query).toArray()) };
  }

  /** Whether the storage is set up (for tests and health checks). */
  async isReady(): Promise<boolean> {
    return !this.isClosing() && this.setting('readyAt') !== undefined;
  }

  // ---- erasure when retention ends (src/project/erasure.ts, src/control/erasures.ts) ----

  /**
   * One bounded slice of a purged project's erasure, called by the daily cron until it answers
   * `done`: first the object closes (every data operation answers 404, the alarm stops, unfinished
   * uploads are aborted), then its R2 objects go, at most `maxKeys` per call, then its own storage
   * (`deleteAll`, `deleteAlarm`). Safe to call again at any point: an interrupted erasure goes on
   * where the stored state says.
   */
  async eraseSlice(input: { projectId: string; maxKeys?: number; batch?: number }): Promise<ErasureProgress> {
    const own = this.setting('projectId');
    if (own && own !== input.projectId) throw new Error(`This object holds project ${own}, not ${input.projectId}.`);
    // Only a project the control plane no longer has (purged) is ever erased.
    const known = await this.env.DB.prepare('SELECT 1 AS known FROM projects WHERE id = ?1').bind(input.projectId).first();
    if (known) throw new Error(`Project ${input.projectId} still exists; only a purged project is erased.`);
    const slice = { budget: new CallBudget(Infinity), maxKeys: input.maxKeys ?? ERASE_SLICE_KEYS, batch: input.batch ?? R2_DELETE_BATCH };
    if (this.migrated) {
      if (!this.isClosing()) {
        this.db.insert(settings).values({ key: 'erasingSince', value: new Date().toISOString() }).onConflictDoNothing().run();
        this.closing = true;
      }
      await this.ctx.storage.deleteAlarm();
      if (await abortStartedUploads(this.env, this.db)) return { step: 'close', deleted: 0, done: false };
    }
    // Nothing stored (never set up, or erased by an earlier call): the R2 objects still go first.
    const { deleted, more } = await deleteUnder(this.env.BUNDLES, projectPrefix(input.projectId), slice);
    if (more) return { step: 'objects', deleted, done: false };
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
    this.erased = true;
    this.migrated = false;
    return { step: 'storage', deleted, done: true };
  }

  /** A person who belongs to no organization any more: their ratings keep their id, not their email. */
  async forgetPeople(userIds: string[]): Promise<number> {
    if (!this.migrated || this.erased) return 0;
    return forgetRaters(this.ctx.storage.sql, userIds);
  }

  // ---- surveys and jobs (spec 4.8, 4.9) ----

  async startSurvey(input: surveys.StartSurveyInput, storeMaxBytes?: number) {
    return this.rpc(async (state) => {
      const answer = await surveys.startSurvey(state, input, storeMaxBytes);
      await this.sweepBy();
      return answer;
    });
  }

  async reportStepStatus(input: surveys.StepStatusInput) {
    return this.rpc((state) => surveys.reportStepStatus(state, input));
  }

  async regenerateSurvey(input: surveys.RegenerateInput, storeMaxBytes?: number) {
    return this.rpc(async (state) => {
      const answer = await surveys.regenerateSurvey(state, input, storeMaxBytes);
      await this.sweepBy();
      return answer;
    });
  }

  async getJob(jobId: string) {
    return this.rpc((state) => surveys.getJob(state, jobId));
  }

  async listJobs(query: surveys.JobQuery) {
    return this.rpc((state) => surveys.listJobs(state, query));
  }

  async deleteSurvey(jobId: string) {
    return this.rpc(async (state) => {
      const answer = surveys.deleteSurvey(state, jobId);
      // Its retention (at least a day) is looked at by the alarm (src/project/erasure.ts).
      if (answer.changed) {
        this.surveyRetentionAt = Math.min(this.surveyRetentionAt, Date.now() + 86_400_000);
        await this.sweepBy(Date.now() + 86_400_000);
      }
      return answer;
    });
  }

  async restoreSurvey(jobId: string) {
    return this.rpc((state) => surveys.restoreSurvey(state, jobId));
  }

  /** `GET P/v1/job/stream`: every job change of the project. */
  async jobStream(): Promise<Response> {
    return this.rpc(() => this.hub.open({ accepts: () => true }));
  }

  /** A survey's own stream (for the CLI's upload pass): its current state first, closed once it finished. */
  async surveyEvents(surveyId: string): Promise<Response> {
    return this.rpc((state) => {
      const survey = surveys.getSurvey(state, surveyId);
      const finished = (job: JobAnswer) => job.id === surveyId && ['COMPLETED', 'FAILED', 'SKIPPED'].includes(job.status);
      return this.hub.open({ accepts: (job) => job.id === surveyId || job.parent_id === surveyId, endsWith: finished, initial: [survey] });
    });
  }

  // ---- uploads (spec 4.7) ----

  async initUpload(input: uploads.InitUploadInput, storeMaxBytes?: number) {
    return this.rpc(async (state) => {
      const answer = await uploads.initUpload(state, input, storeMaxBytes);
      await this.sweepBy();
      return answer;
    });
  }

  async reportUploadProgress(input: uploads.ProgressInput) {
    return this.rpc((state) => uploads.reportUploadProgress(state, input));
  }

  async completeUpload(input: uploads.CompleteUploadInput) {
    return this.rpc((state) => uploads.completeUpload(state, input));
  }

  async listBundles(query: bundleList.BundleQuery) {
    return this.rpc((state) => bundleList.listBundles(state, query));
  }

  // ---- analysis results ----

  async beginAnalysis(input: analysis.AnalysisTarget) {
    return this.rpc((state) => reuse.beginSurveyAnalysis(state, input));
  }

  async finishReusedAnalysis(input: { surveyId: string; attempt: number; reuse: analysis.AnalysisReuse }) {
    return this.rpc((state) => reuse.finishReusedAnalysis(state, input));
  }

  async stageContents(input: analysis.StageInput) {
    return this.rpc((state) => analysis.stageContents(state, input));
  }

  async layerBaseKeys(input: { surveyId: string; attempt: number; kind: ContentKind; after?: string }) {
    return this.rpc((state) => layerBaseKeys(state, input));
  }

  async removeLayerKeys(input: { surveyId: string; attempt: number; kind: ContentKind; keys: string[] }) {
    return this.rpc((state) => analysis.removeLayerKeys(state, input));
  }

  async unlayerAnalysis(input: { surveyId: string }) {
    return this.rpc((state) => analysis.unlayerAnalysis(state, input));
  }

  async finishAnalysis(result: analysis.AnalysisResult) {
    return this.rpc((state) => analysis.finishAnalysis(state, result));
  }

  async failAnalysis(failure: analysis.AnalysisFailure) {
    return this.rpc((state) => analysis.failAnalysis(state, failure));
  }

  async noteAnalysisRetry(input: { surveyId: string; attempt: number; error: string; delaySeconds: number }) {
    return this.rpc((state) => analysis.noteAnalysisRetry(state, input));
  }

  async lastAnalysisError(surveyId: string) {
    return this.rpc((state) => analysis.lastAnalysisError(state, surveyId));
  }

  async analysisRows(query: analysis.RowsQuery): Promise<unknown> {
    return this.rpc((state) => analysis.analysisRows(state, query));
  }

  async libraryRows(query: { surveyId: string; attempt: number; after?: string; limit: number }): Promise<unknown> {
    return this.rpc((state) => analysis.libraryRows(state, query));
  }

  // ---- reports (building) ----

  async beginReports(input: { surveyId: string; message: AnalysisMessage }): Promise<unknown> {
    return this.rpc((state) => reportBuild.beginReports(state, input));
  }

  async stageReportEntries(input: { surveyId: string; attempt: number; reportId: string; entries: reportBuild.EntryRow[] }) {
    return this.rpc((state) => reportBuild.stageReportEntries(state, input));
  }

  async copyReportEntries(input: Parameters<typeof reportBuild.copyReportEntries>[1]) {
    return this.rpc((state) => reportBuild.copyReportEntries(state, input));
  }

  async finishReport(input: reportBuild.FinishedReport) {
    return this.rpc((state) => reportBuild.finishReport(state, input));
  }

  async failReports(input: { surveyId: string; attempt?: number; failureClass: string; message: string }) {
    return this.rpc((state) => reportBuild.failReports(state, input));
  }

  /** A page of a report's entries in section order, for writing its full document. */
  async reportEntryPage(input: { reportId: string; section: string; after: number; limit: number }): Promise<unknown> {
    return this.rpc((state) => reportRead.entriesAfter(state, input));
  }

  // ---- reports (reading, spec 4.10) ----

  async reportSummary(reportId: string): Promise<unknown> {
    return this.rpc((state) => reportRead.summary(state, reportId));
  }

  async reportSection(input: reportRead.SectionQuery): Promise<unknown> {
    return this.rpc((state) => reportRead.sectionPage(state, input));
  }

  async searchReport(input: { reportId: string; query: string }): Promise<unknown> {
    return this.rpc((state) => reportRead.search(state, input.reportId, input.query));
  }

  async compareReports(input: { from: string; to: string }): Promise<unknown> {
    return this.rpc((state) => reportRead.compare(state, input.from, input.to));
  }

  async reportRecord(reportId: string): Promise<unknown> {
    return this.rpc((state) => reportRead.record(state, reportId));
  }

  /** A finished survey's reports and findings as CI outputs read them (src/ci). */
  async ciSurvey(input: { surveyId: string; limit: number; pass: string | null }): Promise<unknown> {
    return this.rpc((state) => ciSurveyData(state, input.surveyId, input.limit, input.pass));
  }

  async regenerateReport(input: reportRead.RegenerateReportInput, storeMaxBytes?: number) {
    return this.rpc(async (state) => {
      const answer = await reportRead.regenerateReport(state, input, storeMaxBytes);
      await this.sweepBy();
      return answer;
    });
  }

  // ---- rendered documents (spec 4.9 rule 4, 4.10) ----

  async renderReport(jobId: string): Promise<unknown> {
    return this.rpc((state) => documents.renderAgain(state, jobId));
  }

  async beginRender(input: { jobId: string }): Promise<unknown> {
    return this.rpc((state) => documents.beginRender(state, input));
  }

  async finishRender(input: documents.FinishedRender) {
    return this.rpc((state) => documents.finishRender(state, input));
  }

  async failRender(input: { jobId: string; attempt?: number; failureClass: string; message: string }) {
    return this.rpc((state) => documents.failRender(state, input));
  }

  async noteRenderRetry(input: { jobId: string; error: string; delaySeconds: number }) {
    return this.rpc((state) => documents.noteRenderRetry(state, input));
  }

  async reportExports(reportId: string): Promise<unknown> {
    return this.rpc((state) => documents.exportFormats(state, reportId));
  }

  async reportDocument(input: { reportId: string; format: DocumentFormat }): Promise<unknown> {
    return this.rpc((state) => {
      reportRead.requireReport(state, input.reportId);
      return documents.documentOf(state, input.reportId, input.format) ?? null;
    });
  }

  async staleDocuments(query: { parentId?: string; templateVersions?: Record<string, string> }): Promise<unknown> {
    return this.rpc((state) => documents.staleDocuments(state, query));
  }

  async subjectContents(query: analysis.ContentsQuery) {
    return this.rpc((state) => analysis.contentsPage(state, query));
  }

  /** `GET P/v1/subject/{subject}/content`: 404 for a name no subject has. */
  async subjectContentPage(query: analysis.ContentsQuery) {
    return this.rpc((state) => {
      portfolios.requireSubject(state, query.subject);
      return analysis.contentsPage(state, query);
    });
  }

  // ---- portfolios (spec 4.1) ----

  async listPortfolios() {
    return this.rpc((state) => portfolios.listPortfolios(state));
  }

  async createPortfolio(input: { name: unknown; members?: unknown[] }) {
    return this.rpc((state) => portfolios.createPortfolio(state, input));
  }

  async getPortfolio(portfolioId: string) {
    return this.rpc((state) => portfolios.getPortfolio(state, portfolioId));
  }

  /** 404 unless the portfolio exists: operations with a body answer it before the body is checked. */
  async requirePortfolio(portfolioId: string) {
    return this.rpc((state) => ({ portfolio_id: portfolios.requirePortfolio(state, portfolioId).id }));
  }

  async updatePortfolio(input: { portfolioId: string; name?: unknown; members?: unknown[] }) {
    return this.rpc((state) => portfolios.updatePortfolio(state, input.portfolioId, input));
  }

  async deletePortfolio(portfolioId: string) {
    return this.rpc((state) => portfolios.deletePortfolio(state, portfolioId));
  }

  async portfolioHistory(input: { portfolioId: string; axis?: Axis }) {
    return this.rpc((state) => portfolios.history(state, input.portfolioId, input.axis));
  }

  async portfolioMembers(portfolioId: string) {
    return this.rpc((state) => portfolios.listMembers(state, portfolioId));
  }

  async addPortfolioMember(input: { portfolioId: string; member: unknown }) {
    return this.rpc((state) => portfolios.addMember(state, input.portfolioId, input.member));
  }

  async removePortfolioMember(input: { portfolioId: string; type: portfolios.MemberType; value: string }) {
    return this.rpc((state) => portfolios.removeMember(state, input.portfolioId, input));
  }

  // Named for their answer's shape (StoredAnswer): a Worker and an object of different versions during
  // a gradual deployment fail the call rather than misread each other.
  async portfolioStateAnswer(input: { portfolioId: string; rank: boolean; gzip: boolean }): Promise<unknown> {
    return this.rpc((state) => scoring.stateAnswer(state, input.portfolioId, input));
  }

  async portfolioRankAnswer(input: { portfolioId: string; offset: number; limit: number; summary: boolean; gzip: boolean }): Promise<unknown> {
    return this.rpc((state) => scoring.rankAnswer(state, input.portfolioId, input));
  }

  async simulationInputs(input: { portfolioId: string; itemKeys: string[]; all?: boolean }): Promise<unknown> {
    return this.rpc((state) => scoring.simulationInputs(state, input.portfolioId, input));
  }

  // ---- subjects and criticality (spec 4.2) ----

  async listSubjects() {
    return this.rpc((state) => portfolios.listSubjects(state));
  }

  async rateSubject(input: { subject: string; value: Criticality; rationale?: string | null; rater: JsonObject }): Promise<unknown> {
    return this.rpc((state) => portfolios.rateSubject(state, input));
  }

  async ratingHistory(subject: string): Promise<unknown> {
    return this.rpc((state) => portfolios.ratingHistory(state, subject));
  }

  // ---- decisions about findings (triage, src/project/decisions.ts) ----

  async listDecisions(filters: decisions.DecisionFilters): Promise<unknown> {
    return this.rpc((state) => decisions.listDecisions(state, filters));
  }

  async getDecision(id: string): Promise<unknown> {
    return this.rpc((state) => decisions.getDecision(state, id));
  }

  /** Every current decision, for the report consumer to mark (and count apart) what they decided. */
  async scopedDecisions(): Promise<unknown> {
    return this.rpc((state) => decisions.scopedDecisions(state));
  }

  async undecidedFindings(input: Parameters<typeof decisions.undecidedFindings>[1]): Promise<unknown> {
    return this.rpc((state) => decisions.undecidedFindings(state, input));
  }

  async expiredDecisions(input: { through: string }): Promise<unknown> {
    return this.rpc((state) => decisions.expiredSince(state, input.through));
  }

  async decisionExpiryReported(input: { through: string }): Promise<unknown> {
    return this.rpc((state) => decisions.expiryReported(state, input.through));
  }

  async decisionHistory(id: string): Promise<unknown> {
    return this.rpc((state) => decisions.decisionHistory(state, id));
  }

  async createDecision(input: Parameters<typeof decisions.createDecision>[1]): Promise<unknown> {
    return this.rpc((state) => decisions.createDecision(state, input));
  }

  async updateDecision(input: Parameters<typeof decisions.updateDecision>[1]): Promise<unknown> {
    return this.rpc((state) => decisions.updateDecision(state, input));
  }

  async vexFindings(reportId: string): Promise<unknown> {
    return this.rpc((state) => vexFindings(state, reportId));
  }

  async importVex(input: Parameters<typeof importVex>[1]): Promise<unknown> {
    return this.rpc((state) => importVex(state, input));
  }

  async withdrawDecision(input: Parameters<typeof decisions.withdrawDecision>[1]): Promise<unknown> {
    return this.rpc((state) => decisions.withdrawDecision(state, input));
  }

  // ---- notifications (src/project/notify-store.ts) ----

  async createNotifyDestination(input: Parameters<typeof notifications.createDestination>[1]): Promise<unknown> {
    return this.rpc((state) => notifications.createDestination(state, input));
  }

  async listNotifyDestinations(): Promise<unknown> {
    return this.rpc((state) => notifications.listDestinations(state));
  }

  async getNotifyDestination(id: string): Promise<unknown> {
    return this.rpc((state) => notifications.destinationAnswer(notifications.requireDestination(state, id)));
  }

  async updateNotifyDestination(input: { id: string; change: Parameters<typeof notifications.updateDestination>[2] }): Promise<unknown> {
    return this.rpc((state) => notifications.updateDestination(state, input.id, input.change));
  }

  async deleteNotifyDestination(id: string): Promise<unknown> {
    return this.rpc((state) => notifications.deleteDestination(state, id));
  }

  async rotateNotifySecret(id: string): Promise<unknown> {
    return this.rpc((state) => notifications.rotateSecret(state, id));
  }

  async notifyDeliveryLog(input: { id: string; limit: number; before?: string }): Promise<unknown> {
    return this.rpc((state) => notifications.deliveryLog(state, input.id, input));
  }

  async sendNotifyTest(input: { id: string; event: Parameters<typeof notifications.sendTestEvent>[2] }): Promise<unknown> {
    return this.rpc((state) => notifications.sendTestEvent(state, input.id, input.event));
  }

  async listNotifyRules(): Promise<unknown> {
    return this.rpc((state) => notifications.listRules(state));
  }

  async getNotifyRule(id: string): Promise<unknown> {
    return this.rpc((state) => notifications.getRule(state, id));
  }

  async createNotifyRule(input: notifications.RuleInput): Promise<unknown> {
    return this.rpc((state) => notifications.createRule(state, input));
  }

  async updateNotifyRule(input: { id: string; rule: notifications.RuleInput }): Promise<unknown> {
    return this.rpc((state) => notifications.updateRule(state, input.id, input.rule));
  }

  async deleteNotifyRule(id: string): Promise<unknown> {
    return this.rpc((state) => notifications.deleteRule(state, id));
  }

  /** The notify queue's consumer takes a destination's due messages (src/queues/notify.ts). */
  async takeNotifyMessages(destinationId: string): Promise<unknown> {
    return this.rpc((state) => notifications.takeMessages(state, destinationId));
  }

  async reportNotifyAttempts(input: { destinationId: string; taken: string[]; attempts: notifications.AttemptReport[] }): Promise<unknown> {
    return this.rpc((state) => notifications.reportAttempts(state, input.destinationId, input));
  }

  // ---- rematch (vulnerability data changed) ----

  /** When the project's components were last matched against the vulnerability data (src/project/rematch-store.ts). */
  async rematchSince() {
    return this.rpc((state) => rematch.rematchSince(state));
  }

  async componentsInRanges(input: { ranges: PurlRange[]; after?: rematch.RangeCursor | null; limit: number }): Promise<unknown> {
    return this.rpc((state) => rematch.componentsInRanges(state, input));
  }

  async componentsWithAdvisories(input: { advisories: string[]; after?: rematch.AdvisoryCursor | null; limit: number }): Promise<unknown> {
    return this.rpc((state) => rematch.componentsWithAdvisories(state, input));
  }

  async replaceVulnFindings(input: { groups: rematch.FindingReplacement[] }) {
    return this.rpc((state) => rematch.replaceVulnFindings(state, input));
  }

  async finishRematch(input: { through: string }) {
    return this.rpc((state) => rematch.finishRematch(state, input));
  }

  // ---- daily snapshot (PORTFOLIO_SNAPSHOT, posture reports) ----

  async startSnapshot(input: { asOf: string }) {
    return this.rpc((state) => posture.startSnapshot(state, input));
  }

  // ---- scoring (the scoring consumer) ----

  async beginScoring(input: { portfolioId: string; generation: number }) {
    return this.rpc((state) => scoring.beginScoring(state, input));
  }

  async refreshSubjects(input: { subjects: string[]; asOf: string; scanned?: scoring.LibraryScan }) {
    return this.rpc((state) => scoring.refreshSubjects(state, input));
  }

  async libraryScanPage(input: { subject: string; from?: { surveyId: string; attempt: number; after: string } }) {
    return this.rpc((state) => scoring.libraryScanPage(state, input));
  }

  async scoringSubjects(subjects: string[]) {
    return this.rpc((state) => scoring.scoringSubjects(state, subjects));
  }

  async scoringFindings(input: { subjects: string[]; after?: [string, string]; limit: number }): Promise<unknown> {
    return this.rpc((state) => scoring.findingsPage(state, input));
  }

  async stageFixes(input: { build: string; rows: scoring.StagedFix[] }) {
    return this.rpc((state) => scoring.stageFixes(state, input));
  }

  async finishScoring(input: scoring.FinishedScoring) {
    return this.rpc((state) => scoring.finishScoring(state, input));
  }

  // ---- data health (spec 4.12) ----

  async listHealthRuns(query: health.RunQuery) {
    return this.rpc((state) => health.listRuns(state, query));
  }

  async healthSummary() {
    return this.rpc((state) => health.summary(state));
  }

  async resolveHealthRef(ref: string) {
    return this.rpc((state) => resolveRef(state, ref));
  }

  // ---- local development (the dev routes, src/routes/dev/, behind DEV_SECRET) ----

  /**
   * Statements on the object's SQLite from the dev routes (benchmark data, the analysis floor; see
   * src/project/dev-sql.ts). Refused unless the instance enables the dev routes: a deployed object runs
   * no SQL it is sent.
   */
  /** Sample notification events through the rules (`npm run bench:notify`); refused without DEV_SECRET. */
  async devRaiseSamples(input: Parameters<typeof notifications.raiseSamples>[1]): Promise<unknown> {
    if (!this.env.DEV_SECRET) throw new Error('devRaiseSamples serves the dev routes only, and this instance has no DEV_SECRET.');
    return this.rpc((state) => notifications.raiseSamples(state, input));
  }

  async devSql(input: DevSqlInput): Promise<DevSqlAnswer> {
    if (!this.env.DEV_SECRET) throw new Error('devSql serves the dev routes only, and this instance has no DEV_SECRET.');
    return this.rpc((state) => runDevSql(state, input));
  }
}

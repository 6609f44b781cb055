// Leases of the steps the service runs (a survey's analysis). Queued work holds a lease too: a
// message lost with a restarted `wrangler dev` (local queues live in memory), or a consumer that dies
// outside the queue's own retries, leaves a lease that lapses; the object's alarm then sends the work
// again. The work is idempotent (each attempt writes under its own number), and after
// MAX_ANALYSIS_STARTS the step fails with class `interrupted`.
import { and, eq, isNotNull, lte, sql } from 'drizzle-orm';
import { changeJob, findJob, isFinished, settleSurvey } from './jobs';
import * as health from './health';
import type { ProjectState } from './state';
import { queuePurge } from './purges';
import { stepLeases } from './schema';
import type { AnalysisMessage } from './jobs';

/** A running attempt renews its lease with every batch it stores; this long without one and it is presumed dead. */
export const RUNNING_LEASE_MS = 45_000;
/** Work waiting in the queue is sent again after this long, doubling with each resend (at most an hour). */
export const QUEUED_LEASE_MS = 60_000;
const MAX_QUEUED_LEASE_MS = 60 * 60_000;
/** Attempts that may start before the step fails (the queue's own retries are starts too). */
export const MAX_ANALYSIS_STARTS = 5;

export type StepLease = typeof stepLeases.$inferSelect;

const queuedLease = (resends: number) => Math.min(MAX_QUEUED_LEASE_MS, QUEUED_LEASE_MS * 2 ** resends);

export function leaseOf(state: ProjectState, stepId: string): StepLease | undefined {
  return state.db.select().from(stepLeases).where(eq(stepLeases.stepId, stepId)).get();
}

/** Sends the step's work to the analysis queue and records it as queued work with a lease. */
export async function queueWork(state: ProjectState, step: { id: string; parentId: string | null }, message: AnalysisMessage, now = Date.now()): Promise<void> {
  // The lease first: should the send fail after all, the alarm sends the work again when it lapses.
  const expiresAt = now + QUEUED_LEASE_MS;
  state.db.insert(stepLeases).values({ stepId: step.id, surveyId: step.parentId!, holder: null, expiresAt, message, counts: {} })
    .onConflictDoUpdate({ target: stepLeases.stepId, set: { holder: null, expiresAt, message } }).run();
  await state.wake(expiresAt);
  await state.env.ANALYSIS_QUEUE.send(message);
}

export type Take = { attempt: number; expiresAt: number } | { busy: true } | { exhausted: number };

/**
 * An attempt starts: it takes the lease unless a live attempt holds it (a duplicate delivery). The
 * rows of the attempt it replaces are queued for deletion.
 */
export function takeLease(state: ProjectState, step: { id: string; parentId: string | null }, message: AnalysisMessage, now = Date.now()): Take {
  const lease = leaseOf(state, step.id);
  if (lease && lease.holder !== null && lease.expiresAt > now) return { busy: true };
  const attempts = (lease?.attempts ?? 0) + 1;
  if (attempts > MAX_ANALYSIS_STARTS) return { exhausted: attempts - 1 };
  if (lease?.holder) queuePurge(state, lease.surveyId, lease.holder, '*');
  const values = { holder: attempts, attempts, expiresAt: now + RUNNING_LEASE_MS, counts: {}, message };
  state.db.insert(stepLeases).values({ stepId: step.id, surveyId: step.parentId!, ...values })
    .onConflictDoUpdate({ target: stepLeases.stepId, set: values }).run();
  return { attempt: attempts, expiresAt: values.expiresAt };
}

/** The lease if `attempt` still holds it, renewed; else undefined (the attempt must stop). */
export function renewLease(state: ProjectState, stepId: string, attempt: number, now = Date.now()): StepLease | undefined {
  const lease = leaseOf(state, stepId);
  if (!lease || lease.holder !== attempt) return undefined;
  const renewed = { ...lease, expiresAt: now + RUNNING_LEASE_MS };
  state.db.update(stepLeases).set({ expiresAt: renewed.expiresAt }).where(eq(stepLeases.stepId, stepId)).run();
  return renewed;
}

/** The attempt gave up and the queue will deliver the work again in `delaySeconds`: the lease waits for it. */
export async function releaseLease(state: ProjectState, stepId: string, delaySeconds: number, now = Date.now()): Promise<void> {
  const lease = leaseOf(state, stepId);
  if (!lease) return;
  const expiresAt = now + delaySeconds * 1000 + QUEUED_LEASE_MS;
  state.db.update(stepLeases).set({ holder: null, expiresAt }).where(eq(stepLeases.stepId, stepId)).run();
  if (lease.holder) queuePurge(state, lease.surveyId, lease.holder, '*');
  await state.wake(expiresAt);
}

export function dropLease(state: ProjectState, stepId: string): void {
  state.db.delete(stepLeases).where(eq(stepLeases.stepId, stepId)).run();
}

/**
 * The alarm's part: every lapsed lease is sent again (or, after MAX_ANALYSIS_STARTS, its step fails
 * with class `interrupted`). Answers when the next lease lapses, or null.
 */
export async function expireLeases(state: ProjectState, now = Date.now()): Promise<number | null> {
  const lapsed = state.db.select().from(stepLeases).where(lte(stepLeases.expiresAt, now)).all();
  for (const lease of lapsed) {
    const step = findJob(state.db, lease.stepId);
    if (!step || isFinished(step.status)) {
      // Finished elsewhere (superseded, swept as abandoned): what its last attempt stored goes too.
      if (lease.holder) queuePurge(state, lease.surveyId, lease.holder, '*');
      dropLease(state, lease.stepId);
      continue;
    }
    if (lease.attempts >= MAX_ANALYSIS_STARTS) {
      failInterrupted(state, lease);
      continue;
    }
    if (lease.holder) queuePurge(state, lease.surveyId, lease.holder, '*');
    const expiresAt = now + queuedLease(lease.resends + 1);
    try {
      await state.env.ANALYSIS_QUEUE.send(lease.message);
    } catch (error) {
      // The queue refused: try again at the next lapse.
      console.error(JSON.stringify({ level: 'error', message: 'analysis resend failed', stepId: lease.stepId, error: String(error) }));
    }
    state.db.update(stepLeases).set({ holder: null, expiresAt, resends: lease.resends + 1 }).where(eq(stepLeases.stepId, lease.stepId)).run();
    const noted = changeJob(state.db, step, {
      message: `The analysis stopped without finishing (attempt ${lease.attempts} of ${MAX_ANALYSIS_STARTS}: the service restarted or its worker died); sent again.`,
      metadata: { resends: lease.resends + 1 },
    });
    state.notify([noted]);
  }
  const next = state.db.select({ at: sql<number | null>`min(${stepLeases.expiresAt})` }).from(stepLeases).get()?.at;
  return next ?? null;
}

/** Fails a step whose work was started MAX_ANALYSIS_STARTS times without finishing. */
export function failInterrupted(state: ProjectState, lease: StepLease): void {
  const step = findJob(state.db, lease.stepId);
  if (lease.holder) queuePurge(state, lease.surveyId, lease.holder, '*');
  dropLease(state, lease.stepId);
  if (!step || isFinished(step.status)) return;
  const failed = changeJob(state.db, step, {
    status: 'FAILED', failureClass: 'interrupted',
    message: `The analysis was started ${lease.attempts} times and never finished (the service restarted or its worker died each time). Regenerate the survey to try again.`,
  });
  const survey = settleSurvey(state.db, lease.surveyId);
  if (survey) health.runFailed(state, survey, 'interrupted');
  state.notify([failed, survey]);
}

/** Whether a live attempt other than the dead-letter path holds the step's lease. */
export function heldByLiveAttempt(state: ProjectState, stepId: string, now = Date.now()): boolean {
  return Boolean(state.db.select({ id: stepLeases.stepId }).from(stepLeases)
    .where(and(eq(stepLeases.stepId, stepId), isNotNull(stepLeases.holder), sql`${stepLeases.expiresAt} > ${now}`)).get());
}

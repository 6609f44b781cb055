// Calling a project's Durable Object from the Worker (handlers, queue consumers): one place that
// names the object, starts its set-up on first use, gives every call a deadline, and turns failures
// into the specification's codes.
import type { Env } from '../env';
import { ApiError } from '../lib/errors';
import { deadlineSetting, withDeadline } from '../lib/deadline';
import { fromRpcFailure, isRpcFailure, noAnswer, platformError, UNPROVISIONED } from './errors';
import type { ProjectObject } from './project-object';

export type ProjectStub = DurableObjectStub<ProjectObject>;

/**
 * How long a request waits for one call to its project's object: 20 s. The slowest calls a request
 * makes (a first page of 1,000 ranked fixes, a state with a thousand subjects) answer in well under a
 * second, and under `wrangler dev` sharing two busy cores within a few; 20 s is far past that, yet far
 * inside the clients' own patience (Node's fetch 300 s, the CLI 120 s idle), so a client gets a
 * retryable 503 instead of its own timeout. `PROJECT_CALL_DEADLINE_MS` sets another (tests: a short one).
 */
export const CALL_DEADLINE_MS = 20_000;
/** Background work (queue consumers, the cron) waits longer: a slow call there costs a retry of the whole attempt. */
export const WORK_DEADLINE_MS = 120_000;
/** Upload complete reads the whole bundle back to verify its SHA-256 (5 GiB at 10 MB/s: under 9 minutes). */
export const VERIFY_DEADLINE_MS = 15 * 60_000;

export interface CallOptions {
  /** This call's deadline; by default the request's (`callDeadline`). */
  deadlineMs?: number;
}

/** The request path's deadline for one project object call. */
export function callDeadline(env: Env): number {
  return deadlineSetting(env.PROJECT_CALL_DEADLINE_MS, CALL_DEADLINE_MS);
}

export function projectStub(env: Env, projectId: string): ProjectStub {
  return env.PROJECT.get(env.PROJECT.idFromName(projectId));
}

/**
 * Runs `call` against the project's object and types its answer as `T` (the RPC stub's own mapped
 * types are too deep for TypeScript on nested answers). An object never set up is set up now (its
 * INSTANCE_STARTUP job) and the call answers 503 `provisioning`. A call without an answer by its
 * deadline answers 503 `unavailable`, a broken connection 502 `bad_gateway`, an overloaded object 503
 * `try_again`: never a wait without end, never 500.
 */
export async function withProject<T>(env: Env, projectId: string, call: (stub: ProjectStub) => Promise<unknown>, options: CallOptions = {}): Promise<T> {
  const stub = projectStub(env, projectId);
  const deadlineMs = options.deadlineMs ?? callDeadline(env);
  let answer: unknown;
  try {
    answer = await withDeadline(Promise.resolve().then(() => call(stub)), deadlineMs, () => noAnswer(deadlineMs), `project ${projectId} call`);
  } catch (error) {
    throw platformError(error) ?? error;
  }
  if (!isRpcFailure(answer)) return answer as T;
  const apiError = fromRpcFailure(answer);
  if (apiError.code === 'provisioning' && apiError.message === UNPROVISIONED) {
    await withDeadline(stub.provision(projectId), deadlineMs, () => noAnswer(deadlineMs), `project ${projectId} provision`).catch(() => undefined);
    throw new ApiError('provisioning', 'The project\'s data is being set up; retry in a few seconds.', { headers: { 'Retry-After': '2' } });
  }
  throw apiError;
}

/** `withProject` for background work (queue consumers, the cron, development seeding): the longer deadline. */
export function withProjectWork<T>(env: Env, projectId: string, call: (stub: ProjectStub) => Promise<unknown>): Promise<T> {
  return withProject<T>(env, projectId, call, { deadlineMs: WORK_DEADLINE_MS });
}

/** Starts a new project's set-up right away (called when the project is created). */
export async function provisionProject(env: Env, projectId: string): Promise<void> {
  await withDeadline(projectStub(env, projectId).provision(projectId), WORK_DEADLINE_MS, () => noAnswer(WORK_DEADLINE_MS), `project ${projectId} provision`);
}

/**
 * For portfolio, subject and data-health reads (spec 4.1, 4.2, 4.12): "portfolios are not set up for
 * the project" until its storage finished its INSTANCE_STARTUP job, answered 404 (docs/decisions.md).
 */
export async function withPortfolioData<T>(env: Env, projectId: string, call: (stub: ProjectStub) => Promise<unknown>): Promise<T> {
  try {
    return await withProject<T>(env, projectId, call);
  } catch (error) {
    if (error instanceof ApiError && error.code === 'provisioning') {
      throw new ApiError('not_found', 'Portfolios are not set up for this project yet: its storage is still being set up (its INSTANCE_STARTUP job). Retry in a few seconds.', { headers: { 'Retry-After': '2' } });
    }
    throw error;
  }
}

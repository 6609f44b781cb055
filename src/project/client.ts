// Calling a project's Durable Object from the Worker (handlers, queue consumers): one place that
// names the object, starts its set-up on first use, and turns failures into the specification's codes.
import type { Env } from '../env';
import { ApiError } from '../lib/errors';
import { fromRpcFailure, isRpcFailure, platformError, UNPROVISIONED } from './errors';
import type { ProjectObject } from './project-object';

export type ProjectStub = DurableObjectStub<ProjectObject>;

export function projectStub(env: Env, projectId: string): ProjectStub {
  return env.PROJECT.get(env.PROJECT.idFromName(projectId));
}

/**
 * Runs `call` against the project's object and types its answer as `T` (the RPC stub's own mapped
 * types are too deep for TypeScript on nested answers). An object never set up is set up now (its
 * INSTANCE_STARTUP job) and the call answers 503 `provisioning`; an unreachable or overloaded object
 * answers 503 `unavailable` / `try_again`, never 500.
 */
export async function withProject<T>(env: Env, projectId: string, call: (stub: ProjectStub) => Promise<unknown>): Promise<T> {
  const stub = projectStub(env, projectId);
  let answer: unknown;
  try {
    answer = await call(stub);
  } catch (error) {
    throw platformError(error) ?? error;
  }
  if (!isRpcFailure(answer)) return answer as T;
  const apiError = fromRpcFailure(answer);
  if (apiError.code === 'provisioning' && apiError.message === UNPROVISIONED) {
    await stub.provision(projectId).catch(() => undefined);
    throw new ApiError('provisioning', 'The project\'s data is being set up; retry in a few seconds.', { headers: { 'Retry-After': '2' } });
  }
  throw apiError;
}

/** Starts a new project's set-up right away (called when the project is created). */
export async function provisionProject(env: Env, projectId: string): Promise<void> {
  await projectStub(env, projectId).provision(projectId);
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

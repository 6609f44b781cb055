// How large a project object's SQLite may grow (docs/scaling.md). Cloudflare keeps at most 10 GB in
// one Durable Object, and a write past that fails: a survey half written, a report that never
// completes. So the object refuses to start new surveys once its store reaches a lower limit, with an
// error that names the limit and what frees space, and the surveys already under way finish in the
// room left above it.
import type { Env } from '../env';
import { ApiError } from '../lib/errors';
import { organizationRetentionDays } from './erasure';
import type { ProjectState } from './project-object';

/**
 * 9 GB: Cloudflare's 10 GB per object less 1 GB for the work already under way when the limit is
 * reached (a 150,000-component survey stores about 50 MB; see docs/scaling.md).
 */
export const DEFAULT_PROJECT_STORE_MAX_BYTES = 9_000_000_000;

/** `PROJECT_STORE_MAX_BYTES`, else the default. */
export function projectStoreMaxBytes(env: Pick<Env, 'PROJECT_STORE_MAX_BYTES'>): number {
  const configured = Number(env.PROJECT_STORE_MAX_BYTES);
  return Number.isSafeInteger(configured) && configured > 0 ? configured : DEFAULT_PROJECT_STORE_MAX_BYTES;
}

const gigabytes = (bytes: number) => `${(bytes / 1e9).toFixed(bytes < 1e8 ? 4 : 2)} GB`;

/**
 * 409 `storage_full` when the project's store has reached `maxBytes`: called where a new survey
 * would start (survey start, upload start without a survey, regenerate), before anything is written.
 */
export async function assertRoomForSurvey(state: ProjectState, maxBytes: number): Promise<void> {
  const size = state.sql.databaseSize;
  if (size < maxBytes) return;
  const days = await organizationRetentionDays(state).catch(() => null);
  const retention = days === null ? 'the organization\'s retention period' : `the organization's retention period (${days} day${days === 1 ? '' : 's'})`;
  throw new ApiError('storage_full', [
    `The project's stored data (${gigabytes(size)}) has reached its limit of ${gigabytes(maxBytes)} (PROJECT_STORE_MAX_BYTES; one project holds at most 10 GB), so it starts no new surveys.`,
    `Delete the surveys you no longer need (DELETE /api/v1/project/{projectId}/v1/survey/{surveyId}): their report entries and files are erased once ${retention} has passed since the deletion, which frees the space; a shorter retentionDays frees it sooner.`,
  ].join(' '));
}

// The parts of the upload flow that run in the Worker itself: the size limit, part uploads streamed
// straight into R2 (never through the project object, for throughput), the runtime settings
// document, and activity entries written once per upload however often the client repeats a call.
import { sql } from 'drizzle-orm';
import { verifyPartToken } from '../../auth/part-token';
import { signingKeys } from '../../auth/tokens';
import { activityInsertWhen, type ActivityInput } from '../../control/activity';
import type { ControlDb } from '../../control/db';
import { activity } from '../../control/schema';
import type { Env } from '../../env';
import { positiveIntegerSetting } from '../../lib/settings';
import { ApiError, forbidden, invalidRequest } from '../../lib/errors';
import { PART_SIZE, PART_URL_SECONDS } from '../../project/uploads';

/**
 * The largest bundle an upload may announce, unless `MAX_BUNDLE_BYTES` sets another: the one place
 * the limit lives (docs/scaling.md). 200 MiB: the largest bundle `bench:analysis` surveyed end to end
 * with the isolate's memory measured (docs/decisions.md, "Memory of a survey").
 */
export const DEFAULT_MAX_BUNDLE_BYTES = 200 * 1024 ** 2;

export function maxBundleBytes(env: Pick<Env, 'MAX_BUNDLE_BYTES'>): number {
  return positiveIntegerSetting(env.MAX_BUNDLE_BYTES, DEFAULT_MAX_BUNDLE_BYTES);
}

/** 400 at upload start for a bundle over the limit, naming it: nothing is stored or started. */
export function assertBundleSize(env: Pick<Env, 'MAX_BUNDLE_BYTES'>, sizeBytes: number): void {
  const max = maxBundleBytes(env);
  if (sizeBytes > max) throw invalidRequest(`The bundle is ${sizeBytes} bytes; the largest accepted is ${max} bytes (MAX_BUNDLE_BYTES).`);
}

export interface PartRequest {
  token: string;
  projectId: string;
  contentLength: string | undefined;
  body: ReadableStream<Uint8Array> | null;
}

/** Stores one part in R2 from a part URL; answers its etag. */
export async function receivePart(env: Env, request: PartRequest): Promise<{ partNumber: number; etag: string }> {
  const grant = await verifyPartToken(await signingKeys(env), request.token);
  if (grant.projectId !== request.projectId) throw forbidden('This part URL was made for another project.');
  const { contentLength } = request;
  if (contentLength === undefined) throw invalidRequest(`Send part ${grant.partNumber} with a Content-Length header of ${grant.size} bytes.`);
  if (!/^\d+$/.test(contentLength.trim()) || Number(contentLength) !== grant.size) {
    throw invalidRequest(`Part ${grant.partNumber} is exactly ${grant.size} bytes; Content-Length says ${contentLength}.`);
  }
  if (!request.body) throw invalidRequest(`Part ${grant.partNumber} has no body; send its ${grant.size} bytes.`);
  // R2 needs a body of known length; a fixed-length stream gives it one and fails if the body is
  // not exactly that long, so a lying Content-Length cannot store a part of another size.
  const sized = new FixedLengthStream(grant.size);
  const stop = new AbortController();
  const piped = request.body.pipeTo(sized.writable, { signal: stop.signal }).then(() => null, (error: unknown) => error ?? 'failed');
  try {
    const part = await env.BUNDLES.resumeMultipartUpload(grant.blobKey, grant.uploadId).uploadPart(grant.partNumber, sized.readable);
    return { partNumber: part.partNumber, etag: part.etag };
  } catch (error) {
    // R2 may refuse before reading the body: give the pipe a moment to report, then stop it.
    const bodyFailed = await Promise.race([piped, scheduler.wait(50).then(() => null)]);
    stop.abort();
    if (/\(10024\)\s*$/.test(error instanceof Error ? error.message : '')) {
      throw new ApiError('conflict', 'The upload was completed or aborted; it takes no more parts.');
    }
    if (bodyFailed) throw invalidRequest(`Part ${grant.partNumber} was not exactly ${grant.size} bytes long.`);
    console.error(JSON.stringify({ level: 'error', message: 'R2 uploadPart failed', uploadId: grant.uploadId, part: grant.partNumber, error: String(error) }));
    throw new ApiError('bad_gateway', 'The bundle storage did not take the part; retry it.');
  }
}

/** The settings document of `GET P/bundle/upload/runtime-config`. */
export function runtimeConfig(env: Env) {
  return {
    version: 1,
    sampling: { maxObservations: 100_000, flushSeconds: 60, maxDurationSeconds: 86_400 },
    capture: { algorithms: true, keySizes: true, protocols: true, cipherSuites: true, groups: true, libraries: true },
    exclude: [] as string[],
    record: {
      directory: 'runtime/', format: 'jsonl' as const,
      fields: ['algorithm', 'keySize', 'protocol', 'cipherSuite', 'group', 'library', 'count'],
    },
    upload: { partSizeBytes: PART_SIZE, maxBundleBytes: maxBundleBytes(env), maxParallelParts: 4, partUrlSeconds: PART_URL_SECONDS },
  };
}

/**
 * Records an activity entry unless the organization already has one of this action naming the
 * same `data[field]`: a repeated init or complete answers the same and must not log twice.
 */
export async function recordActivityOnce(db: ControlDb, input: ActivityInput, field: string, value: string): Promise<void> {
  const seen = sql`NOT EXISTS (SELECT 1 FROM ${activity} WHERE ${activity.orgId} = ${input.orgId} AND ${activity.action} = ${input.action} AND json_extract(${activity.data}, ${`$.${field}`}) = ${value})`;
  await activityInsertWhen(db, input, seen);
}

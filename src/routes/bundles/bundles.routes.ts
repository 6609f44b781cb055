import { defineRoute } from '../../lib/openapi';
import { json, jsonBody, ProjectParams } from '../../lib/schemas';
import {
  BundleListQuery, BundlePage, CompleteUploadAnswer, CompleteUploadRequest, IdempotencyKeyHeader, InitUploadAnswer,
  InitUploadRequest, PartAnswer, PartBody, PartQuery, ProgressRequest, RuntimeConfig,
} from './bundles.schemas';

const P = '/api/v1/project/{projectId}';
const tags = ['Bundles and uploads'];

export const initUpload = defineRoute({
  operationId: 'initUpload',
  method: 'post', path: `${P}/bundle/upload/init`, tags, summary: 'Start a bundle upload',
  description: [
    'Starts the upload of one bundle into the survey `parentId` (a new INVENTORY_SURVEY when omitted) and answers one signed URL per part: 16 MiB parts, the last smaller, valid for `expiresIn` seconds. The survey\'s upload step becomes RUNNING.',
    'A repeat with the same Idempotency-Key answers the same upload (a resumed upload: send the parts still missing); once its URLs are within 15 minutes of expiring, a repeat gets them signed afresh.',
    '400 for an invalid body, a bundle over the maximum (`upload.maxBundleBytes` of the runtime settings; the message names it), a missing `encryptedChallenge`, or a `parentId` that is not a survey; 403 when `encryptedChallenge` does not answer the pass\'s challenge; 404 for an unknown `parentId`; 409 when the survey already has an upload or its upload step is finished, and `storage_full` (without `parentId`, which starts a survey) when the project\'s stored data reached its limit.',
  ].join('\n\n'),
  access: { creds: 'pass' }, errors: [404, 409, 503],
  request: { params: ProjectParams, headers: IdempotencyKeyHeader, ...jsonBody(InitUploadRequest) },
  responses: { 200: { description: 'The upload and its part URLs.', ...json(InitUploadAnswer) } },
});

export const uploadPart = defineRoute({
  operationId: 'uploadPart',
  method: 'put', path: `${P}/bundle/upload/part`, tags, summary: 'Upload one part (a presigned URL)',
  description: [
    'The `presignedUrl` of a part from upload init. The `token` query parameter is the credential: a short-lived token (valid `expiresIn` seconds) for exactly one part of one upload; send no Authorization header. The body is the part\'s bytes (`application/octet-stream`) with a `Content-Length` equal to the part\'s `size`. Parts may be sent in any order and in parallel, and sent again (the last one sent counts).',
    'Answers the part\'s etag in the `ETag` header (quoted) and the body; list it in upload complete. 401 for a missing, invalid (`unauthorized`) or expired (`token_expired`) token; 403 when the path project is not the token\'s; 400 without `Content-Length` or with another length; 409 once the upload was completed or aborted; 502 when the bundle storage failed (retry).',
  ].join('\n\n'),
  access: 'public', errors: [401, 403, 409, 502],
  request: { params: ProjectParams, query: PartQuery, body: { required: true, content: { 'application/octet-stream': { schema: PartBody } } } },
  responses: {
    200: {
      description: 'Stored.',
      headers: { ETag: { description: 'The part\'s etag, quoted.', schema: { type: 'string' } } },
      ...json(PartAnswer),
    },
  },
});

export const reportProgress = defineRoute({
  operationId: 'reportUploadProgress',
  method: 'put', path: `${P}/bundle/upload/progress`, tags, summary: 'Report upload progress',
  description: 'Records the client\'s progress (0 to 100) on the survey\'s upload step while it is PENDING or RUNNING. A lower value than recorded, an unknown `jobId` or a finished step is accepted and ignored.',
  access: { creds: 'pass', keepsAccess: true }, errors: [503],
  request: { params: ProjectParams, ...jsonBody(ProgressRequest) },
  responses: { 200: { description: 'Recorded or ignored; no body.' } },
});

export const completeUpload = defineRoute({
  operationId: 'completeUpload',
  method: 'post', path: `${P}/bundle/upload/complete`, tags, summary: 'Complete a bundle upload',
  description: [
    'Completes the multipart upload and verifies the bundle\'s SHA-256 against the one announced at init. On success the bundle is recorded, the upload step COMPLETED and the survey\'s analysis queued (its analyze step follows). A repeat (same key, or the same upload) answers the same.',
    'On a checksum mismatch the received object is discarded, the upload step and the survey become FAILED (`failure_class` `checksum_mismatch`) and the answer is 400 naming both digests, also on every repeat.',
    '400 for an invalid body, an `uploadId` not of this `blobKey`, another `sha256` than announced, parts not listing each part once, or parts R2 does not hold; 403 when `blobKey` is not under this project; 404 when no upload was started for `blobKey`; 409 when the survey\'s upload step was finished meanwhile.',
  ].join('\n\n'),
  access: { creds: 'pass' }, errors: [404, 409, 502, 503],
  request: { params: ProjectParams, headers: IdempotencyKeyHeader, ...jsonBody(CompleteUploadRequest) },
  responses: { 200: { description: 'The bundle is verified and its analysis queued.', ...json(CompleteUploadAnswer) } },
});

export const runtimeConfig = defineRoute({
  operationId: 'getRuntimeConfig',
  method: 'get', path: `${P}/bundle/upload/runtime-config`, tags, summary: 'Settings for a runtime survey',
  description: [
    'The settings the upload client applies to a runtime survey (`RUNTIME_SURVEY`):',
    '- `version`: the layout of this document (1).',
    '- `sampling`: at most `maxObservations` distinct observation records per survey (further uses only raise `count`), aggregated records written every `flushSeconds`, an observation window of at most `maxDurationSeconds`.',
    '- `capture`: which fields of an observation record to fill (`algorithm`, `keySize`, `protocol`, `cipherSuite`, `group`, `library`).',
    '- `exclude`: library names or path globs not to record.',
    '- `record`: the bundle carries the records in `runtime/*.jsonl`, one JSON object a line with `fields`, and `"runtime": true` in `manifest.json`.',
    '- `upload`: part size, the maximum bundle size, how many parts to send at once, and how long part URLs stay valid.',
  ].join('\n'),
  access: { creds: 'pass' },
  request: { params: ProjectParams },
  responses: { 200: { description: 'The runtime survey settings.', ...json(RuntimeConfig) } },
});

export const listBundles = defineRoute({
  operationId: 'listBundles',
  method: 'get', path: `${P}/v1/bundle`, tags, summary: 'List bundles',
  description: 'Verified bundles, newest first. `after` (a `pagination.lastId`) pages to older bundles, `before` (a `pagination.firstId`) to newer ones; never both. 400 for a cursor that names no bundle.',
  access: { creds: 'any', permissions: ['project:view'] }, errors: [503],
  request: { params: ProjectParams, query: BundleListQuery },
  responses: { 200: { description: 'A page of bundles.', ...json(BundlePage) } },
});

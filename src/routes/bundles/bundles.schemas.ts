import { z } from '@hono/zod-openapi';
import { limitQuery, Pagination } from '../../lib/schemas';

const sha256 = z
  .string()
  .regex(/^[0-9a-fA-F]{64}$/, 'sha256 must be 64 hexadecimal characters.')
  .transform((hex) => hex.toLowerCase())
  .openapi({ description: 'SHA-256 of the whole bundle, hex.', example: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08' });

export const InitUploadRequest = z
  .object({
    sha256,
    sizeBytes: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).openapi({ description: 'The bundle\'s size in bytes; at most `upload.maxBundleBytes` of the runtime settings.', example: 41943040 }),
    parentId: z.uuid().optional().openapi({ description: 'The survey (`parent_id` of start survey) the bundle belongs to; omitted: a new INVENTORY_SURVEY is started.' }),
    encryptedChallenge: z
      .string({ error: (issue) => (issue.input === undefined ? 'encryptedChallenge is required.' : 'encryptedChallenge must be a string.') })
      .min(1, 'encryptedChallenge is required.')
      .max(8192)
      .openapi({ description: 'Compact JWE (`alg: dir`, `enc: A256GCM`) under SHA-256 of the pass\'s `chl` bytes (base64url-decoded), plaintext `{"sha256", "sizeBytes", "iat"}` naming this bundle, `iat` (unix seconds) within the last 10 minutes.' }),
  })
  .openapi('UploadInitRequest');

export const UploadPart = z
  .object({
    partNumber: z.number().int().openapi({ description: '1-based.' }),
    presignedUrl: z.string().openapi({ description: 'PUT the part\'s bytes here, with Content-Length and no Authorization header.' }),
    offset: z.number().int().openapi({ description: 'Where the part starts in the bundle.' }),
    size: z.number().int().openapi({ description: 'The part\'s exact length: 16 MiB, the last part smaller.' }),
  })
  .openapi('UploadPart');

export const InitUploadAnswer = z
  .object({
    parts: z.array(UploadPart),
    expiresIn: z.number().int().openapi({ description: 'Seconds the part URLs stay valid.', example: 3600 }),
    uploadId: z.string(),
    blobKey: z.string().openapi({ example: 'projects/3f1c2a9e-6b1d-4c1e-9a51-2f7c0c6b8e10/bundles/0190f3a2-7b1c-7d4e-8f00-1a2b3c4d5e6f' }),
    bundleId: z.uuid(),
    jobId: z.uuid().openapi({ description: 'The survey id (report progress with it).' }),
  })
  .openapi('UploadStart');

export const PartQuery = z.object({
  token: z.string().min(1).openapi({ param: { name: 'token', in: 'query' }, description: 'The short-lived part token from `presignedUrl`.' }),
});

export const PartBody = z.string().openapi({ format: 'binary', description: 'The part\'s bytes, exactly `size` of them.' });

export const PartAnswer = z
  .object({
    partNumber: z.number().int(),
    etag: z.string().openapi({ description: 'The part\'s etag (the `ETag` header carries it quoted); list it in complete.' }),
  })
  .openapi('UploadedPart');

export const ProgressRequest = z
  .object({
    jobId: z.uuid().openapi({ description: 'The survey\'s `jobId` from upload init.' }),
    progress: z.number().min(0).max(100),
  })
  .openapi('UploadProgressRequest');

export const CompleteUploadRequest = z
  .object({
    uploadId: z.string().min(1).max(1024),
    blobKey: z.string().min(1).max(1024),
    sha256,
    parts: z
      .array(z.object({
        partNumber: z.number().int().min(1).max(10_000),
        etag: z.string().min(1).max(256).openapi({ description: 'As answered by the part upload, quoted or not.' }),
      }))
      .min(1)
      .max(10_000),
  })
  .openapi('UploadCompleteRequest');

export const CompleteUploadAnswer = z
  .object({ status: z.literal('queued'), bundleId: z.uuid() })
  .openapi('UploadCompleted');

export const RuntimeConfig = z
  .object({
    version: z.number().int().openapi({ description: 'Version of this document\'s layout.' }),
    sampling: z.object({
      maxObservations: z.number().int().openapi({ description: 'Most observation records one runtime survey keeps; further ones only raise `count` of records already kept.' }),
      flushSeconds: z.number().int().openapi({ description: 'How often the collector writes its aggregated records to `runtime/*.jsonl`.' }),
      maxDurationSeconds: z.number().int().openapi({ description: 'Longest observation window of one survey.' }),
    }),
    capture: z.object({
      algorithms: z.boolean(), keySizes: z.boolean(), protocols: z.boolean(), cipherSuites: z.boolean(), groups: z.boolean(), libraries: z.boolean(),
    }).openapi({ description: 'Which fields of an observation record to fill.' }),
    exclude: z.array(z.string()).openapi({ description: 'Library names or path globs whose use of cryptography is not recorded.' }),
    record: z.object({
      directory: z.string(), format: z.literal('jsonl'), fields: z.array(z.string()),
    }).openapi({ description: 'Where and how the bundle carries the records.' }),
    upload: z.object({
      partSizeBytes: z.number().int(), maxBundleBytes: z.number().int(), maxParallelParts: z.number().int(), partUrlSeconds: z.number().int(),
    }),
  })
  .openapi('RuntimeConfig');

export const BundleListQuery = z.object({
  limit: limitQuery,
  after: z.uuid().optional().openapi({ param: { name: 'after', in: 'query' }, description: 'A bundle id (`pagination.lastId`): the older bundles after it.' }),
  before: z.uuid().optional().openapi({ param: { name: 'before', in: 'query' }, description: 'A bundle id (`pagination.firstId`): the newer bundles before it.' }),
});

export const Bundle = z
  .object({
    id: z.uuid(),
    sha256: z.string(),
    mime_type: z.string().openapi({ example: 'application/gzip', description: 'application/json, application/gzip, application/zip, or application/octet-stream when unrecognised.' }),
    comment: z.string().nullable(),
    uploaded_at: z.string(),
    size_bytes: z.number().int(),
    survey_id: z.uuid(),
  })
  .openapi('Bundle');

export const BundlePage = z.object({ bundles: z.array(Bundle), pagination: Pagination }).openapi('BundlePage');

export { IdempotencyKeyHeader } from '../surveys/surveys.schemas';

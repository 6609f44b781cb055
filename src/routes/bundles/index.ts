// Bundles and uploads (spec 4.7): thin handlers. Init and complete go through the project object;
// part uploads go straight to R2 (bundles.service.ts).
import { verifyUploadChallenge } from '../../auth/upload-challenge';
import { controlDb } from '../../control/db';
import { ApiError } from '../../lib/errors';
import { createRouter, validationError } from '../../lib/router';
import { VERIFY_DEADLINE_MS, withProject } from '../../project/client';
import type { BundlePage } from '../../project/bundle-list';
import { projectStoreMaxBytes } from '../../project/store-limit';
import { blobKeyPrefix, type CompleteUploadAnswer, type InitUploadAnswer } from '../../project/uploads';
import { assertBundleSize, receivePart, recordActivityOnce, runtimeConfig } from './bundles.service';
import * as routes from './bundles.routes';

export const bundlesRouter = createRouter()
  .openapi(routes.initUpload, async (c) => {
    const { projectId } = c.req.valid('param');
    const { encryptedChallenge, ...bundle } = c.req.valid('json');
    assertBundleSize(c.env, bundle.sizeBytes);
    // Checked here, before the project object is involved: a request that does not prove the pass costs nothing there.
    await verifyUploadChallenge(c.var.principal.challenge, encryptedChallenge, bundle);
    const answer = await withProject<InitUploadAnswer>(c.env, projectId, (stub) =>
      stub.initUpload({ idempotencyKey: c.req.valid('header')['idempotency-key'], ...bundle, origin: new URL(c.req.url).origin }, projectStoreMaxBytes(c.env)));
    await recordActivityOnce(controlDb(c.env.DB), {
      orgId: c.var.principal.orgId, projectId, actor: c.var.principal, action: 'bundle.upload.started', traceId: c.var.requestId,
      data: { uploadId: answer.uploadId, bundleId: answer.bundleId, surveyId: answer.jobId, sha256: bundle.sha256, sizeBytes: bundle.sizeBytes, parts: answer.parts.length },
    }, 'uploadId', answer.uploadId);
    // Without parentId the upload started its own survey.
    if (!bundle.parentId) {
      await recordActivityOnce(controlDb(c.env.DB), {
        orgId: c.var.principal.orgId, projectId, actor: c.var.principal, action: 'survey.started', traceId: c.var.requestId,
        data: { surveyId: answer.jobId, jobType: 'INVENTORY_SURVEY' },
      }, 'surveyId', answer.jobId);
    }
    return c.json(answer, 200);
  })
  .openapi(
    routes.uploadPart,
    async (c) => {
      const { projectId } = c.req.valid('param');
      const part = await receivePart(c.env, {
        token: c.req.valid('query').token, projectId, contentLength: c.req.header('content-length'), body: c.req.raw.body,
      });
      return c.json(part, 200, { ETag: `"${part.etag}"` });
    },
    // The token is the credential of this route: without one the caller is unauthenticated.
    (result) => {
      if (result.success) return undefined;
      if (result.target === 'query') throw new ApiError('unauthorized', 'The part URL carries no token; PUT to the presignedUrl upload init answered.');
      throw validationError(result.target, result.error);
    },
  )
  .openapi(routes.reportProgress, async (c) => {
    const { projectId } = c.req.valid('param');
    await withProject(c.env, projectId, (stub) => stub.reportUploadProgress(c.req.valid('json')));
    return c.body(null, 200);
  })
  .openapi(routes.completeUpload, async (c) => {
    const { projectId } = c.req.valid('param');
    const body = c.req.valid('json');
    if (!body.blobKey.startsWith(blobKeyPrefix(projectId))) throw new ApiError('forbidden', 'blobKey does not belong to this project.');
    const done = await withProject<CompleteUploadAnswer>(c.env, projectId, (stub) =>
      stub.completeUpload({ idempotencyKey: c.req.valid('header')['idempotency-key'], ...body }), { deadlineMs: VERIFY_DEADLINE_MS });
    await recordActivityOnce(controlDb(c.env.DB), {
      orgId: c.var.principal.orgId, projectId, actor: c.var.principal, action: 'bundle.uploaded', traceId: c.var.requestId,
      data: { bundleId: done.bundleId, surveyId: done.surveyId, sha256: done.sha256, sizeBytes: done.sizeBytes, mimeType: done.mimeType },
    }, 'bundleId', done.bundleId);
    return c.json({ status: done.status, bundleId: done.bundleId }, 200);
  })
  .openapi(routes.runtimeConfig, (c) => c.json(runtimeConfig(c.env), 200))
  .openapi(routes.listBundles, async (c) => {
    const { projectId } = c.req.valid('param');
    const query = c.req.valid('query');
    return c.json(await withProject<BundlePage>(c.env, projectId, (stub) => stub.listBundles(query)), 200);
  });

// Bundles and uploads (spec 4.7; ARCHITECTURE sections 2 and 4): init with the pass's challenge,
// parts streamed into R2 through signed part URLs, progress, complete with SHA-256 verification,
// the runtime settings, and the bundle list. Everything goes through the Worker's fetch handler.
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { base64url, decodeJwt } from 'jose';
import { describe, expect, it, vi } from 'vitest';
import { signPartToken } from '../src/auth/part-token';
import { signingKeys } from '../src/auth/tokens';
import { projectStub } from '../src/project/client';
import { api, expectError, json } from './helpers';
import { dataTenant, provisioned } from './data-plane';
import { activityRows, addPerson, apiToken, roleMatrix, type MatrixRole } from './people';
import { challenge, complete, init, initBody, putPart, sendPart, sha256Hex, started, uploadBundle } from './upload-client';

const MiB = 1024 * 1024;
const P = (projectId: string) => `/api/v1/project/${projectId}`;
type Tenant = Awaited<ReturnType<typeof dataTenant>>;

/** Deterministic bytes (xorshift), fast enough for tens of MiB. */
function bytesOf(size: number, seed = 1, head?: number[]): Uint8Array {
  const bytes = new Uint8Array(size);
  const words = new Uint32Array(bytes.buffer, 0, Math.floor(size / 4));
  let x = seed >>> 0 || 1;
  for (let i = 0; i < words.length; i++) {
    x ^= x << 13; x ^= x >>> 17; x ^= x << 5;
    words[i] = x >>> 0;
  }
  if (head) bytes.set(head);
  return bytes;
}

const startSurvey = async (t: Tenant, jobType = 'INVENTORY_SURVEY') =>
  (await json(await api(`${P(t.projectId)}/survey`, { token: t.pass, body: { jobType }, headers: { 'idempotency-key': crypto.randomUUID() } }))).parent_id as string;

const getJob = async (t: Tenant, id: string) => json(await api(`${P(t.projectId)}/v1/job/${id}`, { token: t.token }));
const stepOf = (job: { steps: { step_type: string }[] }, type: string) => job.steps.find((s) => s.step_type === type) as Record<string, any>;
const progress = (t: Tenant, body: unknown, token = t.pass) => api(`${P(t.projectId)}/bundle/upload/progress`, { method: 'PUT', token, body });
const listBundles = (t: { projectId: string; token: string }, query = '', token = t.token) => api(`${P(t.projectId)}/v1/bundle${query}`, { token });
const cbom = (name: string) => new TextEncoder().encode(JSON.stringify({ bomFormat: 'CycloneDX', specVersion: '1.6', metadata: { component: { name } }, components: [] }));

async function uploadRows(projectId: string, surveyId: string): Promise<number> {
  return runInDurableObject(projectStub(env, projectId), async (_instance, state) =>
    Number(state.storage.sql.exec('SELECT count(*) AS n FROM uploads WHERE survey_id = ?', surveyId).one().n));
}

describe('the whole upload (spec 4.7, upload protocol)', () => {
  it('uploads a 40 MiB bundle in three parts, verifies its SHA-256, records it and queues its analysis', async () => {
    const t = await dataTenant();
    const surveyId = await startSurvey(t);
    const bytes = bytesOf(40 * MiB, 7, [0x1f, 0x8b]);
    const start = await started(t, bytes, { parentId: surveyId });
    expect(start).toEqual({
      parts: [
        { partNumber: 1, offset: 0, size: 16 * MiB, presignedUrl: expect.stringMatching(new RegExp(`^http://localhost${P(t.projectId)}/bundle/upload/part\\?token=`)) },
        { partNumber: 2, offset: 16 * MiB, size: 16 * MiB, presignedUrl: expect.any(String) },
        { partNumber: 3, offset: 32 * MiB, size: 8 * MiB, presignedUrl: expect.any(String) },
      ],
      expiresIn: 3600, uploadId: expect.any(String), bundleId: expect.any(String), jobId: surveyId,
      blobKey: expect.stringMatching(new RegExp(`^projects/${t.projectId}/bundles/`)),
    });
    expect(start.blobKey).toBe(`projects/${t.projectId}/bundles/${start.bundleId}`);
    let survey = await getJob(t, surveyId);
    expect([survey.status, stepOf(survey, 'UPLOAD').status, stepOf(survey, 'ANALYZE').status]).toEqual(['RUNNING', 'RUNNING', 'PENDING']);

    const parts = await Promise.all(start.parts.map((p) => sendPart(start, bytes, p.partNumber)));
    expect((await progress(t, { jobId: surveyId, progress: 99 })).status).toBe(200);

    const send = vi.spyOn(env.ANALYSIS_QUEUE, 'send');
    const res = await complete(t, { uploadId: start.uploadId, blobKey: start.blobKey, sha256: await sha256Hex(bytes), parts: parts.reverse() });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ status: 'queued', bundleId: start.bundleId });

    // The analysis consumer may already be at work on the queued message, so only the upload step is settled here.
    survey = await getJob(t, surveyId);
    expect(stepOf(survey, 'UPLOAD')).toMatchObject({ status: 'COMPLETED', progress: 100, metadata: { bundleId: start.bundleId, mimeType: 'application/gzip' } });
    expect(stepOf(survey, 'ANALYZE').status).not.toBe('SKIPPED');
    const stored = await env.BUNDLES.head(start.blobKey);
    expect(stored?.size).toBe(40 * MiB);
    const page = await json(await listBundles(t));
    expect(page.bundles).toEqual([{
      id: start.bundleId, sha256: await sha256Hex(bytes), mime_type: 'application/gzip', comment: null,
      uploaded_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/), size_bytes: 40 * MiB, survey_id: surveyId,
    }]);
    // The queue has no consumer here to read the message back; observing the platform binding's call (not replacing it) is the only view of it.
    expect(send).toHaveBeenCalledExactlyOnceWith({ projectId: t.projectId, surveyId, bundleId: start.bundleId, blobKey: start.blobKey });
    send.mockRestore();
    const [entry] = await activityRows(t.orgId, 'bundle.uploaded');
    expect(entry).toMatchObject({ project_id: t.projectId, actor_id: t.user.id, actor_kind: 'upload_pass', data: { bundleId: start.bundleId, surveyId } });
    expect(await activityRows(t.orgId, 'bundle.upload.started')).toEqual([expect.objectContaining({ data: expect.objectContaining({ uploadId: start.uploadId, parts: 3 }) })]);
  });

  it('starts a new INVENTORY_SURVEY when parentId is omitted, and accepts a RUNTIME_SURVEY parent', async () => {
    const t = await dataTenant();
    const { start, done } = await uploadBundle(t, cbom('shop'));
    const survey = await getJob(t, start.jobId);
    expect(survey).toMatchObject({ type: 'INVENTORY_SURVEY', parent_id: null });
    expect(done).toEqual({ status: 'queued', bundleId: start.bundleId });
    expect((await json(await listBundles(t))).bundles[0]).toMatchObject({ mime_type: 'application/json', survey_id: start.jobId });

    const runtimeId = await startSurvey(t, 'RUNTIME_SURVEY');
    const runtime = await started(t, cbom('rt'), { parentId: runtimeId });
    expect(runtime.jobId).toBe(runtimeId);
  });

  it('resumes an upload: a repeated init with the same key answers the same upload and URLs', async () => {
    const t = await dataTenant();
    const bytes = bytesOf(33 * MiB, 3, [0x50, 0x4b, 0x03, 0x04]);
    const key = crypto.randomUUID();
    const first = await started(t, bytes, {}, key);
    expect(first.parts.map((p) => p.size)).toEqual([16 * MiB, 16 * MiB, MiB]);
    const sent = [await sendPart(first, bytes, 1), await sendPart(first, bytes, 2)];
    const again = await started(t, bytes, {}, key);
    expect(again).toEqual(first);
    sent.push(await sendPart(again, bytes, 3));
    const res = await complete(t, { uploadId: again.uploadId, blobKey: again.blobKey, sha256: await sha256Hex(bytes), parts: sent });
    expect(await json(res)).toEqual({ status: 'queued', bundleId: first.bundleId });
    expect((await json(await listBundles(t))).bundles[0]).toMatchObject({ id: first.bundleId, mime_type: 'application/zip' });
  });
});

describe('upload init (spec 4.7 rule 1)', () => {
  it('answers the same to sequential and concurrent repeats of a key, with one multipart upload', async () => {
    const t = await dataTenant();
    const surveyId = await startSurvey(t);
    const bytes = cbom('x');
    const body = await initBody(t, bytes, { parentId: surveyId });
    const key = crypto.randomUUID();
    const answers = await Promise.all(Array.from({ length: 4 }, () => init(t, body, key).then(json)));
    answers.push(await json(await init(t, { ...body, encryptedChallenge: await challenge(t.pass, { sha256: body.sha256, sizeBytes: body.sizeBytes }) }, key)));
    for (const answer of answers) expect(answer).toEqual(answers[0]);
    expect(await uploadRows(t.projectId, surveyId)).toBe(1);
    expect(await activityRows(t.orgId, 'bundle.upload.started')).toHaveLength(1);
  });

  it('signs the URLs afresh for a repeat once the first ones are close to expiring, keeping the upload', async () => {
    const t = await dataTenant();
    const bytes = cbom('late');
    const key = crypto.randomUUID();
    const first = await started(t, bytes, {}, key);
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 50 * 60 * 1000);
      const later = await started(t, bytes, {}, key);
      expect({ ...later, parts: later.parts.map(({ presignedUrl: _, ...p }) => p) }).toEqual({ ...first, parts: first.parts.map(({ presignedUrl: _, ...p }) => p) });
      expect(later.parts[0]!.presignedUrl).not.toBe(first.parts[0]!.presignedUrl);
      vi.setSystemTime(Date.now() + 20 * 60 * 1000);
      await expectError(await putPart(first.parts[0]!.presignedUrl, bytes, { 'content-length': String(bytes.length) }), 401, 'token_expired');
      expect((await putPart(later.parts[0]!.presignedUrl, bytes, { 'content-length': String(bytes.length) })).status).toBe(200);
    } finally {
      vi.useRealTimers();
    }
  });

  it('answers 409 for the key reused with another bundle, or a second upload into the same survey', async () => {
    const t = await dataTenant();
    const surveyId = await startSurvey(t);
    const key = crypto.randomUUID();
    expect((await init(t, await initBody(t, cbom('a'), { parentId: surveyId }), key)).status).toBe(200);
    await expectError(await init(t, await initBody(t, cbom('b'), { parentId: surveyId }), key), 409, 'conflict');
    await expectError(await init(t, await initBody(t, cbom('b'), { parentId: surveyId })), 409, 'conflict');
  });

  it('answers 403 when encryptedChallenge does not answer the pass\'s challenge', async () => {
    const t = await dataTenant();
    const bytes = cbom('c');
    const sha256 = await sha256Hex(bytes);
    const now = Math.floor(Date.now() / 1000);
    const otherPass = (await dataTenant()).pass;
    const cases: Record<string, string> = {
      'another pass\'s key': await challenge(otherPass, { sha256, sizeBytes: bytes.length }),
      'a random key': await challenge(t.pass, { sha256, sizeBytes: bytes.length }, base64url.encode(crypto.getRandomValues(new Uint8Array(32)))),
      'another sha256': await challenge(t.pass, { sha256: 'a'.repeat(64), sizeBytes: bytes.length }),
      'another size': await challenge(t.pass, { sha256, sizeBytes: bytes.length + 1 }),
      'a stale iat': await challenge(t.pass, { sha256, sizeBytes: bytes.length, iat: now - 11 * 60 }),
      'an iat in the future': await challenge(t.pass, { sha256, sizeBytes: bytes.length, iat: now + 5 * 60 }),
      'garbage': 'not.a.jwe.at.all',
    };
    for (const [why, encryptedChallenge] of Object.entries(cases)) {
      const res = await init(t, { sha256, sizeBytes: bytes.length, encryptedChallenge });
      expect({ why, status: res.status }).toEqual({ why, status: 403 });
      await expectError(res, 403, 'forbidden');
    }
    const fresh = await challenge(t.pass, { sha256, sizeBytes: bytes.length, iat: now - 9 * 60 });
    expect((await init(t, { sha256, sizeBytes: bytes.length, encryptedChallenge: fresh })).status).toBe(200);
  });

  it('answers 400 for a missing challenge or key header, an invalid body and a bundle over 200 MiB (MAX_BUNDLE_BYTES)', async () => {
    const t = await dataTenant();
    const bytes = cbom('d');
    const body = await initBody(t, bytes);
    const { encryptedChallenge: _, ...noChallenge } = body;
    const missing = await expectError(await init(t, noChallenge), 400, 'invalid_request');
    expect(missing.error).toMatch(/encryptedChallenge/);
    await expectError(await init(t, body, null), 400, 'invalid_parameter', { parameter: 'idempotency-key' });
    await expectError(await init(t, { ...body, sha256: 'xyz' }), 400, 'invalid_request');
    await expectError(await init(t, { ...body, sizeBytes: 0 }), 400, 'invalid_request');
    await expectError(await init(t, { ...body, parentId: 'nope' }), 400, 'invalid_request');
    await expectError(await api(`${P(t.projectId)}/bundle/upload/init`, { token: t.pass, body: 'not json', headers: { 'idempotency-key': 'k' } }), 400, 'invalid_request');
    const huge = 200 * MiB + 1;
    const tooLarge = await init(t, { sha256: body.sha256, sizeBytes: huge, encryptedChallenge: await challenge(t.pass, { sha256: body.sha256, sizeBytes: huge }) });
    expect((await expectError(tooLarge, 400, 'invalid_request')).error).toBe(`The bundle is ${huge} bytes; the largest accepted is ${200 * MiB} bytes (MAX_BUNDLE_BYTES).`);
  });

  it('answers 400 for a parentId that is a step or another type of job, 404 for an unknown one', async () => {
    const t = await dataTenant();
    const surveyId = await startSurvey(t);
    const survey = await getJob(t, surveyId);
    const bytes = cbom('e');
    await expectError(await init(t, await initBody(t, bytes, { parentId: stepOf(survey, 'UPLOAD').id })), 400, 'invalid_request');
    const jobs = await json(await api(`${P(t.projectId)}/v1/job?jobType=INSTANCE_STARTUP`, { token: t.token }));
    await expectError(await init(t, await initBody(t, bytes, { parentId: jobs.jobs[0].id })), 400, 'invalid_request');
    await expectError(await init(t, await initBody(t, bytes, { parentId: crypto.randomUUID() })), 404, 'not_found');
  });
});

describe('part upload (ARCHITECTURE section 4 "part URLs")', () => {
  it('answers 401 for a missing, tampered, expired or foreign token, 403 for another project\'s path', async () => {
    const t = await dataTenant();
    const bytes = cbom('f');
    const start = await started(t, bytes);
    const url = new URL(start.parts[0]!.presignedUrl);
    const token = url.searchParams.get('token')!;
    const send = (u: string) => putPart(u, bytes, { 'content-length': String(bytes.length) });
    const base = `http://localhost${P(t.projectId)}/bundle/upload/part`;
    await expectError(await send(base), 401, 'unauthorized');
    const [header, payload, signature] = token.split('.');
    const forged = base64url.encode(JSON.stringify({ ...decodeJwt(token), size: bytes.length + 1 }));
    await expectError(await send(`${base}?token=${header}.${forged}.${signature}`), 401, 'unauthorized');
    await expectError(await send(`${base}?token=${header}.${payload}.${signature!.slice(0, 10)}`), 401, 'unauthorized');
    await expectError(await send(`${base}?token=${t.pass}`), 401, 'unauthorized');
    const grant = { projectId: t.projectId, uploadId: start.uploadId, blobKey: start.blobKey, partNumber: 1, size: bytes.length };
    const expired = await signPartToken(await signingKeys(env), grant, Math.floor(Date.now() / 1000) - 10);
    await expectError(await send(`${base}?token=${expired}`), 401, 'token_expired');
    const other = await dataTenant();
    await expectError(await send(`http://localhost${P(other.projectId)}/bundle/upload/part?token=${token}`), 403, 'forbidden');
    expect((await send(url.toString())).status).toBe(200);
  });

  it('answers 400 without Content-Length or with another length than the part\'s', async () => {
    const t = await dataTenant();
    const bytes = cbom('g');
    const start = await started(t, bytes);
    const url = start.parts[0]!.presignedUrl;
    // A stream of unknown length: the request carries no Content-Length.
    const stream = () => new ReadableStream({ start(controller) { controller.enqueue(bytes); controller.close(); } });
    expect((await expectError(await putPart(url, stream()), 400, 'invalid_request')).error).toMatch(/Content-Length/);
    await expectError(await putPart(url, bytes.slice(1), { 'content-length': String(bytes.length - 1) }), 400, 'invalid_request');
    await expectError(await putPart(url, bytes, { 'content-length': 'ten' }), 400, 'invalid_request');
  });

  it('answers 409 for a part sent after the upload was completed', async () => {
    const t = await dataTenant();
    const bytes = cbom('h');
    const { start } = await uploadBundle(t, bytes);
    await expectError(await putPart(start.parts[0]!.presignedUrl, bytes, { 'content-length': String(bytes.length) }), 409, 'conflict');
  });
});

describe('upload progress (spec 4.7 rule 2, part 3)', () => {
  it('records the value on the upload step, never lowered, with an empty 200', async () => {
    const t = await dataTenant();
    const start = await started(t, cbom('p'));
    const res = await progress(t, { jobId: start.jobId, progress: 40 });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
    await progress(t, { jobId: start.jobId, progress: 20 });
    expect(stepOf(await getJob(t, start.jobId), 'UPLOAD').progress).toBe(40);
    await progress(t, { jobId: start.jobId, progress: 60 });
    expect(stepOf(await getJob(t, start.jobId), 'UPLOAD')).toMatchObject({ progress: 60, status: 'RUNNING' });
  });

  it('accepts and ignores unknown jobs and finished steps', async () => {
    const t = await dataTenant();
    const { start } = await uploadBundle(t, cbom('q'));
    expect((await progress(t, { jobId: crypto.randomUUID(), progress: 10 })).status).toBe(200);
    expect((await progress(t, { jobId: start.jobId, progress: 10 })).status).toBe(200);
    expect(stepOf(await getJob(t, start.jobId), 'UPLOAD')).toMatchObject({ status: 'COMPLETED', progress: 100 });
  });

  it('answers 400 for a missing or malformed jobId and a progress outside 0 to 100 (any number inside)', async () => {
    const t = await dataTenant();
    const jobId = await startSurvey(t);
    await expectError(await progress(t, { progress: 10 }), 400, 'invalid_request');
    await expectError(await progress(t, { jobId: 'x', progress: 10 }), 400, 'invalid_request');
    await expectError(await progress(t, { jobId, progress: 101 }), 400, 'invalid_request');
    await expectError(await progress(t, { jobId, progress: -1 }), 400, 'invalid_request');
    expect((await progress(t, { jobId, progress: 5.5 })).status).toBe(200);
  });
});

describe('upload complete (spec 4.7 rule 3)', () => {
  it('answers the same to sequential and concurrent repeats, recording one bundle and one activity entry', async () => {
    const t = await dataTenant();
    const bytes = cbom('r');
    const start = await started(t, bytes);
    const parts = [await sendPart(start, bytes, 1)];
    const body = { uploadId: start.uploadId, blobKey: start.blobKey, sha256: await sha256Hex(bytes), parts };
    const key = crypto.randomUUID();
    const answers = await Promise.all([complete(t, body, key), complete(t, body, key), complete(t, body)].map((r) => r.then(async (res) => [res.status, await json(res)])));
    answers.push(await complete(t, body, key).then(async (res) => [res.status, await json(res)]));
    for (const answer of answers) expect(answer).toEqual([200, { status: 'queued', bundleId: start.bundleId }]);
    expect((await json(await listBundles(t))).pagination.total).toBe(1);
    expect(await activityRows(t.orgId, 'bundle.uploaded')).toHaveLength(1);
  });

  it('fails the upload step and the survey on a checksum mismatch, keeps no bundle, and answers the same 400 on repeats', async () => {
    const t = await dataTenant();
    const announced = bytesOf(4096, 11);
    const sent = bytesOf(4096, 12);
    const start = await started(t, announced);
    const parts = [await sendPart(start, sent, 1)];
    const body = { uploadId: start.uploadId, blobKey: start.blobKey, sha256: await sha256Hex(announced), parts };
    const first = await expectError(await complete(t, body), 400, 'invalid_request');
    expect(first.error).toContain(await sha256Hex(announced));
    expect(first.error).toContain(await sha256Hex(sent));
    expect(await expectError(await complete(t, body), 400, 'invalid_request')).toEqual(first);
    expect((await json(await listBundles(t))).bundles).toEqual([]);
    expect(await env.BUNDLES.head(start.blobKey)).toBeNull();
    const survey = await getJob(t, start.jobId);
    expect(survey).toMatchObject({ status: 'FAILED', failure_class: 'checksum_mismatch' });
    expect(stepOf(survey, 'UPLOAD')).toMatchObject({ status: 'FAILED', failure_class: 'checksum_mismatch', message: first.error });
    expect(await activityRows(t.orgId, 'bundle.uploaded')).toEqual([]);
  });

  it('answers 403 for a blobKey of another project and 404 for one never started', async () => {
    const t = await dataTenant();
    const other = await dataTenant();
    const bytes = cbom('s');
    const theirs = await started(other, bytes);
    const body = { uploadId: theirs.uploadId, blobKey: theirs.blobKey, sha256: await sha256Hex(bytes), parts: [{ partNumber: 1, etag: '"x"' }] };
    await expectError(await complete(t, body), 403, 'forbidden');
    await expectError(await complete(t, { ...body, blobKey: `projects/${t.projectId}/bundles/${crypto.randomUUID()}` }), 404, 'not_found');
  });

  it('answers 400 for a missing key, an invalid body, another uploadId or sha256, incomplete parts and a wrong etag', async () => {
    const t = await dataTenant();
    const bytes = cbom('u');
    const start = await started(t, bytes);
    const parts = [await sendPart(start, bytes, 1)];
    const body = { uploadId: start.uploadId, blobKey: start.blobKey, sha256: await sha256Hex(bytes), parts };
    await expectError(await complete(t, body, null), 400, 'invalid_parameter', { parameter: 'idempotency-key' });
    await expectError(await complete(t, { ...body, parts: [] }), 400, 'invalid_request');
    await expectError(await complete(t, { ...body, sha256: 'nothex' }), 400, 'invalid_request');
    await expectError(await complete(t, { ...body, uploadId: 'another' }), 400, 'invalid_request');
    await expectError(await complete(t, { ...body, sha256: 'b'.repeat(64) }), 400, 'invalid_request');
    await expectError(await complete(t, { ...body, parts: [...parts, { partNumber: 2, etag: 'x' }] }), 400, 'invalid_request');
    await expectError(await complete(t, { ...body, parts: [{ partNumber: 1, etag: '"0000"' }] }), 400, 'invalid_request');
    expect((await complete(t, body)).status).toBe(200);
  });
});

describe('the OpenAPI document', () => {
  it('describes every upload operation, the part URL as public', async () => {
    const doc = await json(await api('/api/v1/openapi.json'));
    const base = '/api/v1/project/{projectId}';
    for (const [path, method] of [['init', 'post'], ['part', 'put'], ['progress', 'put'], ['complete', 'post'], ['runtime-config', 'get']]) {
      expect(doc.paths[`${base}/bundle/upload/${path}`]?.[method!], path).toBeDefined();
    }
    const part = doc.paths[`${base}/bundle/upload/part`].put;
    expect(part.security).toEqual([]);
    expect(part.description).toMatch(/token/);
    expect(part.requestBody.content['application/octet-stream']).toBeDefined();
    expect(doc.paths[`${base}/v1/bundle`].get.responses['200'].content['application/json'].schema.$ref).toBe('#/components/schemas/BundlePage');
  });
});

describe('runtime config (spec 4.7 rule 4)', () => {
  it('answers the settings document for a runtime survey', async () => {
    const t = await dataTenant();
    const res = await api(`${P(t.projectId)}/bundle/upload/runtime-config`, { token: t.pass });
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({
      version: 1, sampling: { maxObservations: expect.any(Number), flushSeconds: expect.any(Number) },
      capture: { algorithms: true, keySizes: true, protocols: true, cipherSuites: true, groups: true, libraries: true },
      exclude: [], record: { directory: 'runtime/', format: 'jsonl' },
      upload: { partSizeBytes: 16 * MiB, maxBundleBytes: 200 * MiB, maxParallelParts: 4, partUrlSeconds: 3600 },
    });
  });
});

describe('bundle list (spec 4.7 rule 5)', () => {
  it('pages newest first with after (older) and before (newer) cursors', async () => {
    const t = await dataTenant();
    const ids = [];
    for (const name of ['one', 'two', 'three']) ids.push((await uploadBundle(t, cbom(name))).start.bundleId);
    const newest = [...ids].reverse();
    const first = await json(await listBundles(t, '?limit=2'));
    expect(first.bundles.map((b: { id: string }) => b.id)).toEqual(newest.slice(0, 2));
    expect(first.pagination).toEqual({ firstId: newest[0], lastId: newest[1], hasMore: true, total: 3 });
    const next = await json(await listBundles(t, `?limit=2&after=${first.pagination.lastId}`));
    expect(next.bundles.map((b: { id: string }) => b.id)).toEqual([newest[2]]);
    expect(next.pagination).toMatchObject({ hasMore: false, total: 3 });
    const back = await json(await listBundles(t, `?limit=1&before=${next.pagination.firstId}`));
    expect(back.bundles.map((b: { id: string }) => b.id)).toEqual([newest[1]]);
    expect(back.pagination.hasMore).toBe(true);
    expect((await json(await listBundles(t))).bundles.map((b: { id: string }) => b.id)).toEqual(newest);
  });

  it('answers 400 for both cursors, a cursor naming no bundle, and a limit out of range', async () => {
    const t = await dataTenant();
    const { start } = await uploadBundle(t, cbom('v'));
    await expectError(await listBundles(t, `?after=${start.bundleId}&before=${start.bundleId}`), 400, 'invalid_parameter', { parameter: 'before' });
    await expectError(await listBundles(t, `?after=${crypto.randomUUID()}`), 400, 'invalid_parameter', { parameter: 'after' });
    await expectError(await listBundles(t, `?before=${start.jobId}`), 400, 'invalid_parameter', { parameter: 'before' });
    await expectError(await listBundles(t, '?after=nope'), 400, 'invalid_parameter', { parameter: 'after' });
    await expectError(await listBundles(t, '?limit=0'), 400, 'invalid_parameter', { parameter: 'limit' });
    await expectError(await listBundles(t, '?limit=10001'), 400, 'invalid_parameter', { parameter: 'limit' });
  });
});

describe('who may call (spec 4.7 rule 6, part 5)', () => {
  it('lists bundles for every caller holding project:view; 403 without it; 401 for an upload pass', async () => {
    const { tenant, tokens } = await roleMatrix();
    await provisioned(tenant.projectId);
    const expected: Record<MatrixRole, number> = { admin: 200, member: 200, viewer: 200, custom: 200, apiToken: 200, uploadPass: 401 };
    for (const [role, token] of Object.entries(tokens)) {
      const res = await listBundles({ projectId: tenant.projectId, token }, '', token);
      expect({ role, status: res.status }).toEqual({ role, status: expected[role as MatrixRole] });
    }
    const orgOnly = await addPerson(tenant, { permissions: ['org:view'] }, 'orgonly');
    await expectError(await listBundles({ projectId: tenant.projectId, token: orgOnly.token }), 403, 'permission_denied', { permission: 'project:view' });
    const noView = await apiToken(tenant, ['project:edit']);
    await expectError(await listBundles({ projectId: tenant.projectId, token: noView }), 403, 'permission_denied', { permission: 'project:view' });
  });

  it('accepts only an upload pass on the upload operations (401 for a session or an API token)', async () => {
    const t = await dataTenant();
    const token = await apiToken(t, ['project:view', 'project:edit', 'project:admin']);
    const body = await initBody(t, cbom('w'));
    for (const credential of [t.token, token]) {
      await expectError(await init(t, body, crypto.randomUUID(), credential), 401, 'unauthorized');
      await expectError(await progress(t, { jobId: crypto.randomUUID(), progress: 1 }, credential), 401, 'unauthorized');
      await expectError(await complete(t, { uploadId: 'u', blobKey: 'b', sha256: body.sha256, parts: [{ partNumber: 1, etag: 'e' }] }, 'k', credential), 401, 'unauthorized');
      await expectError(await api(`${P(t.projectId)}/bundle/upload/runtime-config`, { token: credential }), 401, 'unauthorized');
    }
  });

  it('keeps projects apart: a pass of project A gets 403 on every upload route of project B', async () => {
    const a = await dataTenant('a');
    const b = await dataTenant('b');
    const bytes = cbom('iso');
    const theirs = await started(b, bytes);
    const asA = { ...b, pass: a.pass };
    await expectError(await init(asA, await initBody(a, bytes)), 403, 'forbidden');
    await expectError(await progress(asA, { jobId: theirs.jobId, progress: 50 }), 403, 'forbidden');
    await expectError(await complete(asA, { uploadId: theirs.uploadId, blobKey: theirs.blobKey, sha256: await sha256Hex(bytes), parts: [{ partNumber: 1, etag: 'e' }] }), 403, 'forbidden');
    await expectError(await api(`${P(b.projectId)}/bundle/upload/runtime-config`, { token: a.pass }), 403, 'forbidden');
    await expectError(await listBundles({ projectId: b.projectId, token: a.token }), 403, 'forbidden');
    const mine = await started(a, bytes);
    const token = new URL(mine.parts[0]!.presignedUrl).searchParams.get('token');
    await expectError(await putPart(`http://localhost${P(b.projectId)}/bundle/upload/part?token=${token}`, bytes, { 'content-length': String(bytes.length) }), 403, 'forbidden');
    expect(stepOf(await getJob(b, theirs.jobId), 'UPLOAD').progress).toBe(0);
  });
});

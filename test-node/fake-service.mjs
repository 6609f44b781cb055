// A fake of the service's upload side, faithful to the protocol in the ISSUE3 briefing: it checks
// the pass and its JWE challenge, idempotency keys, part ranges and Content-Length, reassembles the
// parts and checks the SHA-256, serves the survey's events and the runtime settings document
// (`GET P/bundle/upload/runtime-config`, the service's own unless a test gives another). Failures
// are injected per route. The triage routes (the decision list and the VEX import) take an API token.
// A survey's REPORT steps finish with headline figures in `metadata.figures`, derived from what the
// test says the survey found and from the subject's previous survey, as the service does.
// A finished survey's CI outputs (`GET P/v1/survey/{id}/ci?format=`) are stand-in documents naming the
// survey and the `failOn` asked for, readable only by the pass that started the survey.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import { SignJWT, compactDecrypt, jwtVerify } from 'jose';

export const PART_SIZE = 16 * 1024 * 1024;
const MAX_BUNDLE = 200 * 1024 ** 2;
const SECRET = new TextEncoder().encode('fake-service-signing-secret-0123456789');
const FINISHED = new Set(['COMPLETED', 'FAILED', 'SKIPPED']);

/** An upload pass as the service issues it: a JWT whose `chl` claim is 32 random bytes. */
export async function mintPass(projectId, { chl = randomBytes(32).toString('base64url') } = {}) {
  return new SignJWT({ kind: 'upload_pass', org: randomUUID(), prj: projectId, chl })
    .setProtectedHeader({ alg: 'HS256' }).setJti(randomUUID()).setSubject(randomUUID()).setExpirationTime('1h').sign(SECRET);
}

/**
 * @typedef {{ status: number, code?: string, retryAfter?: string } | 'drop' | 'lose-answer'} Failure
 *   'drop' closes the connection before acting; 'lose-answer' acts, then closes without answering.
 * @typedef {object} FakeOptions
 * @property {string} projectId
 * @property {Record<string, Failure[]>} [fail] keyed by route: survey, init, part:N, progress, complete, events, runtime-config,
 *   decision (the list), vex (the import), ci (the CI outputs)
 * @property {number} [partDelayMs] how long each part's answer is held (makes overlap visible)
 * @property {number} [stepDelayMs] time between the survey's state changes after complete
 * @property {'COMPLETED' | 'FAILED'} [outcome]
 * @property {boolean} [hold] the survey never finishes
 * @property {number} [dropStreamAfter] the first event stream is cut after this many job-updates
 * @property {Findings | Findings[]} [findings] what each survey finds (the n-th survey to run takes
 *   the n-th; the last one repeats); default: nothing
 * @property {string[]} [withoutFigures] REPORT step labels that finish without figures (an older service)
 * @property {unknown} [runtimeConfig] the runtime settings document (default: RUNTIME_CONFIG, the service's)
 * @property {number} [partSize] the part size upload init answers (default PART_SIZE)
 * @property {string} [apiToken] the API token the triage routes (`GET P/v1/decision`, `POST P/v1/vex`) take
 * @property {any[]} [decisions] the project's current decisions, newest first, as `GET P/v1/decision` lists them
 * @property {(document: any) => any} [vexAnswer] what `POST P/v1/vex` answers for a document (default:
 *   every statement applied)
 */
/**
 * What a survey finds, as entry keys: the same key in the subject's next survey is the same entry.
 * @typedef {object} Findings
 * @property {Partial<Record<'red' | 'yellow' | 'transition' | 'green' | 'unclassified', string[]>>} [crypto] keys per section
 * @property {Partial<Record<'critical' | 'high' | 'medium' | 'low' | 'unknown', string[]>>} [vulns]
 *   `component advisory` keys per severity
 * @property {number} [components] components in the SBOM
 * @property {number} [fixable] vulnerable components with a fix version
 * @property {string | null} [nearestDeadline]
 */
/** `GET P/bundle/upload/runtime-config` as the service answers it (src/routes/bundles/bundles.service.ts). */
export const RUNTIME_CONFIG = {
  version: 1,
  sampling: { maxObservations: 100_000, flushSeconds: 60, maxDurationSeconds: 86_400 },
  capture: { algorithms: true, keySizes: true, protocols: true, cipherSuites: true, groups: true, libraries: true },
  exclude: [],
  record: { directory: 'runtime/', format: 'jsonl', fields: ['algorithm', 'keySize', 'protocol', 'cipherSuite', 'group', 'library', 'count'] },
  upload: { partSizeBytes: PART_SIZE, maxBundleBytes: MAX_BUNDLE, maxParallelParts: 4, partUrlSeconds: 3600 },
};
export const SECTIONS = ['red', 'yellow', 'transition', 'green', 'unclassified'];
export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'unknown'];

/** @param {FakeOptions} options */
export async function startFake(options) {
  const state = {
    requests: [], surveys: new Map(), uploads: new Map(), keys: { survey: [], init: [], complete: [], vex: [] },
    answers: new Map(), decisionQueries: [], vexImports: [], parts: [], partAttempts: new Map(), inFlightParts: 0, maxInFlightParts: 0,
    progress: [], completions: 0, bundles: [], streams: 0, lastEventIds: [], timers: new Set(), surveyRequests: new Map(),
    /** @type {{ surveyId: string, format: string | null, failOn: string | null, path?: string | null }[]} */ ciReads: [], /** @type {Map<string, string>} survey id -> the pass's jti */ startedBy: new Map(),
    runs: 0, /** @type {Map<string, { surveyId: string, findings: Findings }>} the last COMPLETED survey of each subject */ previous: new Map(),
  };
  /** @type {Map<string, Set<http.ServerResponse>>} */
  const listeners = new Map();
  let eventSeq = 0;
  const fail = structuredClone(options.fail ?? {});

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err) => {
      if (!res.headersSent) sendError(res, 500, 'internal', String(err?.stack ?? err));
    });
  });

  async function handle(req, res) {
    const url = new URL(req.url, 'http://fake');
    // Arrival, before the token is checked and the body read: the times tests compare are the client's pace, not this server's.
    req.arrivedAt = Date.now();
    state.requests.push({ method: req.method, path: url.pathname, headers: req.headers, at: req.arrivedAt });
    const m = url.pathname.match(/^\/api\/v1\/project\/([^/]+)\/(.+)$/);
    if (!m) return sendError(res, 404, 'not_found', 'no such route');
    const [, projectId, rest] = m;
    if (req.method === 'PUT' && rest === 'bundle/upload/part') return part(req, res, url);
    if (rest === 'v1/decision' || rest === 'v1/vex') return triage(req, res, url, rest);
    const claims = await authorize(req, res, projectId);
    if (!claims) return;
    if (req.method === 'POST' && rest === 'survey') return survey(req, res, claims);
    const ci = rest.match(/^v1\/survey\/([^/]+)\/ci$/);
    if (req.method === 'GET' && ci) return ciOutput(req, res, url, claims, ci[1]);
    if (req.method === 'GET' && rest === 'bundle/upload/runtime-config') {
      if (injected('runtime-config', req, res)) return;
      return sendJson(res, 200, options.runtimeConfig ?? RUNTIME_CONFIG);
    }
    if (req.method === 'POST' && rest === 'bundle/upload/init') return init(req, res, claims, projectId);
    if (req.method === 'PUT' && rest === 'bundle/upload/progress') return progress(req, res);
    if (req.method === 'POST' && rest === 'bundle/upload/complete') return complete(req, res, projectId);
    const ev = rest.match(/^survey\/([^/]+)\/events$/);
    if (req.method === 'GET' && ev) return events(req, res, ev[1]);
    return sendError(res, 404, 'not_found', 'no such route');
  }

  async function authorize(req, res, projectId) {
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!token) return void sendError(res, 401, 'unauthorized', 'missing token');
    try {
      const { payload } = await jwtVerify(token, SECRET);
      if (payload.kind !== 'upload_pass') return void sendError(res, 401, 'unauthorized', 'not a pass');
      if (payload.prj !== projectId) return void sendError(res, 403, 'forbidden', 'pass made for another project');
      return payload;
    } catch {
      return void sendError(res, 401, 'unauthorized', 'invalid token');
    }
  }

  // The triage routes take an API token (project:view to list, project:edit to import); an upload
  // pass is refused as the service refuses it, for lack of the permission.
  async function triage(req, res, url, rest) {
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!token) return sendError(res, 401, 'unauthorized', 'missing token');
    if (token !== options.apiToken) {
      const pass = await jwtVerify(token, SECRET).catch(() => null);
      if (!pass) return sendError(res, 401, 'unauthorized', 'invalid token');
      const permission = rest === 'v1/vex' ? 'project:edit' : 'project:view';
      return sendError(res, 403, 'permission_denied', `This needs the permission ${permission}.`, { permission });
    }
    if (req.method === 'GET' && rest === 'v1/decision') return decisionList(req, res, url);
    if (req.method === 'POST' && rest === 'v1/vex') return vexImport(req, res);
    return sendError(res, 405, 'method_not_allowed', 'method not allowed');
  }

  function decisionList(req, res, url) {
    const action = injected('decision', req, res);
    if (action === true) return;
    if (action === 'lose-answer') return req.socket.destroy();
    const q = Object.fromEntries(url.searchParams);
    state.decisionQueries.push(q);
    const limit = Number(q.limit ?? 1000);
    if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) return sendError(res, 400, 'invalid_parameter', 'limit', { parameter: 'limit' });
    const unversioned = (/** @type {string | null | undefined} */ purl) => purl?.replace(/@[^@/?#]*(?=[?#]|$)/, '');
    const selected = (options.decisions ?? []).filter((d) => (!q.state ? d.state !== 'withdrawn' : d.state === q.state)
      && (!q.type || d.finding.type === q.type) && (!q.advisory_id || d.finding.advisory_id === q.advisory_id)
      && (!q.package || unversioned(d.finding.package) === unversioned(q.package)) && (!q.subject || d.finding.subject === q.subject));
    const start = q.after ? selected.findIndex((d) => d.id === q.after) + 1 : 0;
    if (q.after && start === 0) return sendError(res, 400, 'invalid_parameter', 'no decision has the id after', { parameter: 'after' });
    const page = selected.slice(start, start + limit);
    sendJson(res, 200, {
      decisions: page,
      pagination: { firstId: page[0]?.id ?? null, lastId: page.at(-1)?.id ?? null, hasMore: start + limit < selected.length, total: selected.length },
    });
  }

  async function vexImport(req, res) {
    const key = req.headers['idempotency-key'];
    if (key !== undefined) state.keys.vex.push(key);
    const action = injected('vex', req, res);
    if (action === true) return;
    const document = await readJson(req, res);
    if (document === undefined) return;
    let answer = key === undefined ? undefined : state.answers.get(`vex:${key}`);
    if (!answer) {
      const openvex = document?.['@context'] === 'https://openvex.dev/ns/v0.2.0';
      if (!openvex && document?.bomFormat !== 'CycloneDX') {
        answer = error(400, 'invalid_request', 'Not a VEX document: a CycloneDX document (bomFormat) or an OpenVEX 0.2.0 document (@context).');
      } else {
        state.vexImports.push(document);
        answer = { status: 200, body: options.vexAnswer?.(document) ?? allApplied(document, openvex) };
        if (key !== undefined) state.answers.set(`vex:${key}`, answer);
      }
    }
    if (action === 'lose-answer') return req.socket.destroy();
    sendJson(res, answer.status, answer.body);
  }

  /** Applies the next injected failure of `route`; true when the request has been dealt with. */
  function injected(route, req, res) {
    const f = fail[route]?.shift();
    if (!f || f === 'lose-answer') return f === 'lose-answer' ? 'lose-answer' : false;
    if (f === 'drop') return req.socket.destroy(), true;
    if (f.retryAfter !== undefined) res.setHeader('retry-after', f.retryAfter);
    sendError(res, f.status, f.code ?? 'try_again', `injected ${f.status}`);
    return true;
  }

  /** Answers a keyed call once; a repeat of the key gets the recorded answer. */
  async function idempotent(kind, req, res, act) {
    const key = req.headers['idempotency-key'];
    if (!key) return sendError(res, 400, 'invalid_parameter', 'Idempotency-Key is required', { parameter: 'Idempotency-Key' });
    state.keys[kind].push(key);
    const action = injected(kind, req, res);
    if (action === true) return;
    const body = await readJson(req, res);
    if (body === undefined) return;
    let answer = state.answers.get(`${kind}:${key}`);
    if (!answer) {
      answer = await act(body);
      if (answer.status < 300) state.answers.set(`${kind}:${key}`, answer);
    }
    if (action === 'lose-answer') return req.socket.destroy();
    sendJson(res, answer.status, answer.body);
  }

  function survey(req, res, claims) {
    return idempotent('survey', req, res, (body) => {
      if (!['INVENTORY_SURVEY', 'RUNTIME_SURVEY'].includes(body.jobType)) return error(400, 'invalid_request', 'jobType');
      const s = newSurvey(body);
      state.startedBy.set(s.id, String(claims.jti));
      return { status: 201, body: { parent_id: s.id, submission_timestamp: s.created_at, sub_job_ids: { upload: s.steps[0].id, analyze: s.steps[1].id } } };
    });
  }

  /** `GET P/v1/survey/{id}/ci`: 404, 403 for another pass, 409 until COMPLETED, then a stand-in document of the format. */
  function ciOutput(req, res, url, claims, surveyId) {
    const format = url.searchParams.get('format');
    const failOn = url.searchParams.get('failOn');
    state.ciReads.push({ surveyId, format, failOn, ...(url.searchParams.has('path') ? { path: url.searchParams.get('path') } : {}) });
    if (injected('ci', req, res)) return;
    const s = state.surveys.get(surveyId);
    if (!s) return sendError(res, 404, 'not_found', 'no such survey');
    if (state.startedBy.get(surveyId) !== claims.jti) return sendError(res, 403, 'forbidden', 'An upload pass reads the CI outputs only of the surveys it started.');
    if (s.status !== 'COMPLETED') return sendError(res, 409, 'conflict', `The survey is ${s.status}.`);
    const gate = failOn ? ` --fail-on ${failOn}` : '';
    if (format === 'sarif') {
      return sendJson(res, 200, { $schema: 'https://json.schemastore.org/sarif-2.1.0.json', version: '2.1.0', runs: [{ tool: { driver: { name: 'posture', informationUri: baseUrl } }, results: [], properties: { survey_id: surveyId } }] });
    }
    if (format === 'junit') {
      res.writeHead(200, { 'content-type': 'application/xml; charset=utf-8' });
      return res.end(`<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="posture survey ${surveyId}${gate}" tests="0" failures="0"></testsuites>\n`);
    }
    if (format === 'markdown') {
      res.writeHead(200, { 'content-type': 'text/markdown; charset=utf-8' });
      return res.end(`## Posture: ${s.target ?? 'survey'}\n\nSurvey \`${surveyId}\` completed.${gate}\n`);
    }
    return sendError(res, 400, 'invalid_parameter', 'format', { parameter: 'format' });
  }

  function init(req, res, claims, projectId) {
    return idempotent('init', req, res, async (body) => {
      const { sha256, sizeBytes, parentId, encryptedChallenge } = body;
      if (!/^[0-9a-f]{64}$/.test(sha256 ?? '') || !Number.isInteger(sizeBytes) || sizeBytes < 1) return error(400, 'invalid_request', 'sha256/sizeBytes');
      if (sizeBytes > MAX_BUNDLE) return error(400, 'invalid_request', 'the bundle is larger than the maximum');
      if (typeof encryptedChallenge !== 'string') return error(400, 'invalid_request', 'encryptedChallenge is required');
      if (!(await answersChallenge(encryptedChallenge, claims.chl, sha256, sizeBytes))) {
        return error(403, 'forbidden', "encryptedChallenge does not answer the pass's challenge");
      }
      const s = parentId === undefined ? newSurvey({ jobType: 'INVENTORY_SURVEY' }) : state.surveys.get(parentId);
      if (!s) return error(404, 'not_found', 'no such survey');
      const uploadId = randomUUID(), bundleId = randomUUID(), blobKey = `projects/${projectId}/bundles/${bundleId}`;
      const partSize = options.partSize ?? PART_SIZE;
      const count = Math.ceil(sizeBytes / partSize);
      const upload = { uploadId, blobKey, bundleId, sha256, sizeBytes, surveyId: s.id, tokens: new Map(), stored: new Map() };
      const parts = Array.from({ length: count }, (_, i) => {
        const token = randomBytes(12).toString('hex');
        const part = { partNumber: i + 1, offset: i * partSize, size: Math.min(partSize, sizeBytes - i * partSize) };
        upload.tokens.set(token, part);
        return { ...part, presignedUrl: `${baseUrl}/api/v1/project/${projectId}/bundle/upload/part?token=${token}` };
      });
      state.uploads.set(blobKey, upload);
      return { status: 200, body: { parts, expiresIn: 3600, uploadId, blobKey, bundleId, jobId: s.id } };
    });
  }

  async function part(req, res, url) {
    const token = url.searchParams.get('token');
    const upload = [...state.uploads.values()].find((u) => u.tokens.has(token));
    if (!upload) return sendError(res, 403, 'forbidden', 'bad part token');
    const spec = upload.tokens.get(token);
    state.partAttempts.set(spec.partNumber, (state.partAttempts.get(spec.partNumber) ?? 0) + 1);
    if (req.headers.authorization) return sendError(res, 400, 'invalid_request', 'a part URL takes no Authorization');
    if (req.headers['content-length'] !== String(spec.size)) return sendError(res, 400, 'invalid_request', `Content-Length must be ${spec.size}`);
    state.inFlightParts++;
    state.maxInFlightParts = Math.max(state.maxInFlightParts, state.inFlightParts);
    res.on('close', () => state.inFlightParts--);
    if (injected(`part:${spec.partNumber}`, req, res)) return req.resume();
    const data = await readBody(req);
    if (data.length !== spec.size) return sendError(res, 400, 'invalid_request', 'short body');
    if (options.partDelayMs) await delay(options.partDelayMs);
    const etag = `"${createHash('md5').update(data).digest('hex')}"`;
    upload.stored.set(spec.partNumber, { data, etag });
    state.parts.push({ partNumber: spec.partNumber, offset: spec.offset, size: data.length, sha256: sha(data) });
    res.writeHead(200, { etag }).end();
  }

  async function progress(req, res) {
    if (injected('progress', req, res)) return;
    const body = await readJson(req, res);
    if (body === undefined) return;
    if (typeof body.jobId !== 'string' || !Number.isFinite(body.progress) || body.progress < 0 || body.progress > 100) {
      return sendError(res, 400, 'invalid_request', 'jobId/progress');
    }
    state.progress.push({ jobId: body.jobId, progress: body.progress, at: req.arrivedAt });
    const s = state.surveys.get(body.jobId);
    if (s && !FINISHED.has(s.steps[0].status)) change(s, s.steps[0], { status: 'RUNNING', progress: body.progress });
    res.writeHead(200).end();
  }

  function complete(req, res, projectId) {
    return idempotent('complete', req, res, (body) => {
      const { uploadId, blobKey, sha256, parts } = body;
      if (typeof uploadId !== 'string' || typeof blobKey !== 'string' || !Array.isArray(parts)) return error(400, 'invalid_request', 'body');
      if (!blobKey.startsWith(`projects/${projectId}/`)) return error(403, 'forbidden', 'blobKey of another project');
      const upload = state.uploads.get(blobKey);
      if (!upload || upload.uploadId !== uploadId) return error(404, 'not_found', 'no upload for that blobKey');
      const expected = Math.ceil(upload.sizeBytes / (options.partSize ?? PART_SIZE));
      if (parts.length !== expected || parts.some((p, i) => p.partNumber !== i + 1 || upload.stored.get(i + 1)?.etag !== p.etag)) {
        return error(400, 'invalid_request', 'parts do not match the uploaded parts');
      }
      const data = Buffer.concat(parts.map((p) => upload.stored.get(p.partNumber).data));
      if (data.length !== upload.sizeBytes || sha(data) !== upload.sha256 || sha256 !== upload.sha256) {
        return error(400, 'invalid_request', 'the bundle does not match its sha256');
      }
      state.completions++;
      state.bundles.push({ bundleId: upload.bundleId, data });
      run(state.surveys.get(upload.surveyId));
      return { status: 200, body: { status: 'queued', bundleId: upload.bundleId } };
    });
  }

  function events(req, res, surveyId) {
    if (!String(req.headers.accept ?? '').includes('text/event-stream')) return sendError(res, 406, 'not_acceptable', 'Accept');
    const s = state.surveys.get(surveyId);
    if (!s) return sendError(res, 404, 'not_found', 'no such survey');
    if (injected('events', req, res)) return;
    const connection = ++state.streams;
    state.lastEventIds.push(req.headers['last-event-id'] ?? null);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.write(': connected\n\nretry: 50\n\n');
    res.sent = 0;
    res.cutAfter = connection === 1 ? options.dropStreamAfter : undefined;
    const heartbeat = setInterval(() => res.writableEnded || res.write(': heartbeat\n\n'), 100);
    res.on('close', () => {
      clearInterval(heartbeat);
      listeners.get(surveyId)?.delete(res);
    });
    // The current state first, so a client that (re)connects late still learns where things are.
    send(res, s);
    if (FINISHED.has(s.status)) return res.end();
    if (!listeners.has(surveyId)) listeners.set(surveyId, new Set());
    listeners.get(surveyId).add(res);
  }

  function send(res, job) {
    if (res.destroyed || res.writableEnded) return;
    const text = `id: ${++eventSeq}\nevent: job-update\ndata: ${JSON.stringify(job)}\n\n`;
    // Two writes, split mid-line: the client must put events together across chunks.
    const cut = Math.floor(text.length / 2);
    res.write(text.slice(0, cut));
    res.write(text.slice(cut));
    res.sent++;
    if (res.cutAfter !== undefined && res.sent >= res.cutAfter) res.socket.destroy();
  }

  function newSurvey(body) {
    const now = new Date().toISOString();
    const id = randomUUID();
    const step = (type, label) => ({ id: randomUUID(), type, step_type: type, step_label: label, status: 'PENDING', progress: 0, message: null, parent_id: id, created_at: now });
    const s = {
      id, type: body.jobType, status: 'PENDING', progress: 0, message: null, created_at: now, started_at: null, finished_at: null,
      metadata: {}, parent_id: null, tag: body.tag ?? null, target: body.target ?? null, deleted_at: null, supersedes: null,
      steps: [
        step('UPLOAD', 'upload'), step('ANALYZE', 'analyze'),
        ...(body.jobType === 'RUNTIME_SURVEY' ? ['pqc-inventory', 'cbom'] : ['pqc-inventory', 'cbom', 'composition']).map((label) => step('REPORT', label)),
      ],
    };
    state.surveys.set(id, s);
    state.surveyRequests.set(id, body);
    return s;
  }

  function change(s, job, fields) {
    Object.assign(job, fields);
    for (const res of listeners.get(s.id) ?? []) {
      send(res, job);
      if (job === s && FINISHED.has(job.status)) res.end();
    }
  }

  function run(s) {
    const failed = options.outcome === 'FAILED';
    const all = options.findings === undefined ? [{}] : [options.findings].flat();
    const findings = all[Math.min(state.runs++, all.length - 1)];
    const subject = s.target ?? 'unnamed';
    const previous = state.previous.get(subject) ?? null;
    const reportSteps = s.steps.slice(2);
    const script = [
      () => change(s, s.steps[0], { status: 'COMPLETED', progress: 100 }),
      () => change(s, s, { status: 'RUNNING', started_at: new Date().toISOString() }),
      () => change(s, s.steps[1], { status: 'RUNNING' }),
      () => change(s, s.steps[1], failed ? { status: 'FAILED', message: 'the bundle holds no CycloneDX document' } : { status: 'COMPLETED', progress: 100 }),
      ...reportSteps.map((step) => () => change(s, step, failed ? { status: 'SKIPPED' } : {
        status: 'COMPLETED', progress: 100, message: `The ${step.step_label} report is ready.`,
        metadata: (options.withoutFigures ?? []).includes(step.step_label)
          ? { report_id: step.id }
          : { figures: reportFigures(step.step_label, findings, previous), report_id: step.id },
      })),
      () => {
        if (!failed) state.previous.set(subject, { surveyId: s.id, findings });
        change(s, s, { status: options.outcome ?? 'COMPLETED', finished_at: new Date().toISOString(), message: failed ? 'analysis failed' : null });
      },
    ];
    const steps = options.hold ? script.slice(0, 3) : script;
    steps.forEach((fn, i) => {
      const t = setTimeout(() => { state.timers.delete(t); fn(); }, (i + 1) * (options.stepDelayMs ?? 30));
      state.timers.add(t);
    });
  }

  async function readJson(req, res) {
    if (!String(req.headers['content-type'] ?? '').startsWith('application/json')) {
      return void sendError(res, 415, 'unsupported_media_type', 'send JSON');
    }
    const raw = await readBody(req);
    if (req.headers['content-length'] !== String(raw.length)) return void sendError(res, 400, 'invalid_request', 'Content-Length');
    try {
      return JSON.parse(raw.toString('utf8'));
    } catch {
      return void sendError(res, 400, 'invalid_request', 'not JSON');
    }
  }

  const port = await listen(server);
  const baseUrl = `http://127.0.0.1:${port}`;
  return {
    url: baseUrl, port, state,
    survey: (id) => state.surveys.get(id),
    close() {
      for (const t of state.timers) clearTimeout(t);
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * The ports this test suite may use: 18100-18199 (or POSTURE_FAKE_PORTS, `first-last`, where runs
 * beside each other share the machine), the first free one from a random start.
 */
async function listen(server) {
  const [low, high] = (process.env.POSTURE_FAKE_PORTS ?? '18100-18199').split('-').map(Number);
  const count = high - low + 1;
  const first = Math.floor(Math.random() * count);
  for (let i = 0; i < count; i++) {
    const port = low + ((first + i) % count);
    const ok = await new Promise((resolve, reject) => {
      const onError = (err) => (err.code === 'EADDRINUSE' ? resolve(false) : reject(err));
      server.once('error', onError);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', onError);
        resolve(true);
      });
    });
    if (ok) return port;
  }
  throw new Error(`no free port in ${low}-${high}`);
}

async function answersChallenge(jwe, chl, sha256, sizeBytes) {
  try {
    const key = createHash('sha256').update(Buffer.from(chl, 'base64url')).digest();
    const { plaintext, protectedHeader } = await compactDecrypt(jwe, new Uint8Array(key));
    if (protectedHeader.alg !== 'dir' || protectedHeader.enc !== 'A256GCM') return false;
    const claim = JSON.parse(new TextDecoder().decode(plaintext));
    return claim.sha256 === sha256 && claim.sizeBytes === sizeBytes && Math.abs(Date.now() / 1000 - claim.iat) <= 600;
  } catch {
    return false;
  }
}

/**
 * A REPORT step's `metadata.figures` (the service's contract): totals, and for pqc-inventory and
 * composition the entries new and gone since the subject's previous survey.
 * @param {string} label
 * @param {Findings} findings
 * @param {{ surveyId: string, findings: Findings } | null} previous
 */
export function reportFigures(label, findings, previous) {
  const counts = (/** @type {string[]} */ names, /** @type {Record<string, string[]> | undefined} */ lists) =>
    Object.fromEntries(names.map((n) => [n, lists?.[n]?.length ?? 0]));
  const minus = (/** @type {string[]} */ names, /** @type {Record<string, string[]> | undefined} */ a, /** @type {Record<string, string[]> | undefined} */ b) =>
    Object.fromEntries(names.map((n) => [n, (a?.[n] ?? []).filter((k) => !(b?.[n] ?? []).includes(k)).length]));
  const changes = (/** @type {string[]} */ names, /** @type {'crypto' | 'vulns'} */ kind) => ({
    previous_survey_id: previous?.surveyId ?? null,
    new: previous ? minus(names, findings[kind], previous.findings[kind]) : counts(names, findings[kind]),
    gone: previous ? minus(names, previous.findings[kind], findings[kind]) : counts(names, {}),
  });
  if (label === 'pqc-inventory') {
    const sections = counts(SECTIONS, findings.crypto);
    const total = Object.values(sections).reduce((a, b) => a + b, 0);
    const nearest = findings.nearestDeadline !== undefined ? findings.nearestDeadline : sections.red ? '2030-12-31' : null;
    return { sections, cnsa2: { approved: sections.green, not_approved: total - sections.green }, nearest_deadline: nearest, changes: changes(SECTIONS, 'crypto') };
  }
  if (label === 'composition') {
    const keys = Object.values(findings.vulns ?? {}).flat();
    return {
      components: findings.components ?? 0,
      vulnerable_components: new Set(keys.map((k) => k.split(' ')[0])).size,
      advisories: new Set(keys.map((k) => k.split(' ')[1])).size,
      fixable: findings.fixable ?? 0,
      severities: counts(SEVERITIES, findings.vulns),
      changes: changes(SEVERITIES, 'vulns'),
    };
  }
  const algorithms = Object.values(findings.crypto ?? {}).flat().length;
  return { asset_types: { algorithm: algorithms, certificate: 0, protocol: 0, 'related-crypto-material': 0 } };
}

/** The import's answer when every statement found its finding. */
function allApplied(document, openvex) {
  const statements = openvex ? document.statements ?? [] : document.vulnerabilities ?? [];
  const results = statements.map((st, i) => ({
    statement: i, vulnerability: openvex ? st.vulnerability?.name : st.id, product: openvex ? st.products?.[0]?.['@id'] : st.affects?.[0]?.ref,
    outcome: 'applied', decision_id: randomUUID(),
  }));
  return {
    format: openvex ? 'openvex' : 'cyclonedx', spec_version: openvex ? '0.2.0' : document.specVersion,
    source: { author: openvex ? document.author ?? null : null, document_id: openvex ? document['@id'] ?? null : document.serialNumber ?? null, timestamp: document.timestamp ?? null, version: document.version ?? null },
    statements: results.length, applied: results.length, already_in_place: 0, superseded: 0, not_matched: 0, results, results_truncated: false,
  };
}

const error = (status, code, message) => ({ status, body: { error: message, status, code } });
const sha = (data) => createHash('sha256').update(data).digest('hex');
const delay = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function sendJson(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
}

function sendError(res, status, code, message, extra = {}) {
  sendJson(res, status, { error: message, status, code, ...extra });
}

async function readBody(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return Buffer.concat(chunks);
}

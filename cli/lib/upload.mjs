// The upload protocol (ISSUE3 "Upload protocol"): start a survey, start the upload with the
// answered challenge, PUT the parts 4 at a time (a runtime survey: as many as its settings say),
// report progress, complete, and optionally wait.
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Transform, pipeline } from 'node:stream';
import { encryptChallenge } from './challenge.mjs';
import { CliError } from './errors.mjs';
import { followSurvey } from './events.mjs';
import { FiguresCollector, evaluateGate, gateError } from './figures.mjs';
import { networkError, request, serviceError, withRetries } from './http.mjs';
import { USER_AGENT } from './version.mjs';

/** @typedef {import('./api.mjs').ServiceClient} ServiceClient */
/** @typedef {import('./bundle.mjs').Bundle} Bundle */
/** @typedef {import('./events.mjs').Job} Job */
/** @typedef {import('./progress.mjs').Output} Output */
/** @typedef {{ partNumber: number, presignedUrl: string, offset: number, size: number }} Part */
/** @typedef {{ parts: Part[], uploadId: string, blobKey: string, bundleId?: string, jobId?: string }} UploadStart */
/**
 * Files to write a finished survey's CI outputs to (--sarif, --junit, --summary-md).
 * `artifact`: the uploaded PATH relative to the working directory (a directory ends with `/`), where
 * SARIF places the findings that name no file (lib/upload.mjs artifactPath).
 * @typedef {{ sarif?: string, junit?: string, markdown?: string, artifact?: string }} CiFiles
 */
/**
 * @typedef {object} SurveyRequest
 * @property {'INVENTORY_SURVEY' | 'RUNTIME_SURVEY'} jobType
 * @property {string} [target]
 * @property {string} [tag]
 * @property {Record<string, string>} [jsonTags]
 * @property {string} [notes]
 */

export const PARALLEL_PARTS = 4;
const MiB = 1024 * 1024;
const PROGRESS_EVERY_MS = 1000;

/**
 * Uploads `bundle` as a new survey; with `wait`, follows the survey until it finishes and throws
 * a CliError when it did not complete. A COMPLETED survey's figures (its REPORT steps') are shown
 * and checked against `failOn`; a gate that did not pass throws (exit 3 or 4, lib/figures.mjs).
 * `upload`: a runtime survey's upload settings (lib/runtime.mjs): `maxParallelParts` parts are sent
 * at once instead of PARALLEL_PARTS, and the parts upload init answers are held against
 * `partSizeBytes` (the service signs each part URL for its size: the answer is what is sent).
 * @param {{ client: ServiceClient, challenge: string, bundle: Bundle, survey: SurveyRequest,
 *   output: Output, wait: boolean, timeoutMs: number, failOn?: import('./figures.mjs').GateToken[],
 *   upload?: { partSizeBytes: number, maxParallelParts: number }, ciFiles?: CiFiles }} options
 *   `ciFiles`: once the survey completed, its CI outputs are written there, before the gate is judged
 *   (a tripped gate still leaves the SARIF for the job to upload).
 * @returns {Promise<{ surveyId: string, bundleId: string, survey: Job | null }>}
 */
export async function runUpload({ client, challenge, bundle, survey, output, wait, timeoutMs, failOn = [], upload, ciFiles = {} }) {
  // One key per call for the whole run: every retry of a call resends its key.
  const keys = { survey: randomUUID(), init: randomUUID(), complete: randomUUID() };
  const started = await client.json('start survey', 'POST', 'survey', survey, { idempotencyKey: keys.survey });
  const surveyId = started?.parent_id;
  if (typeof surveyId !== 'string') throw new CliError('start survey: the answer has no parent_id (invalid_answer)');
  output.survey(surveyId);

  const { sha256, size } = bundle;
  const encryptedChallenge = await encryptChallenge(challenge, { sha256, sizeBytes: size });
  /** @type {UploadStart} */
  const start = await client.json('upload init', 'POST', 'bundle/upload/init',
    { sha256, sizeBytes: size, parentId: surveyId, encryptedChallenge }, { idempotencyKey: keys.init });
  checkUploadStart(start, size);
  const parallel = upload?.maxParallelParts ?? PARALLEL_PARTS;
  if (upload) output.info(partsPlan(start.parts, upload.partSizeBytes, parallel));

  const etags = await uploadParts(client, bundle, start, output, start.jobId ?? surveyId, parallel);
  const done = await client.json('upload complete', 'POST', 'bundle/upload/complete',
    { uploadId: start.uploadId, blobKey: start.blobKey, sha256, parts: etags }, { idempotencyKey: keys.complete });
  const bundleId = String(done?.bundleId ?? start.bundleId);
  output.completed(bundleId, surveyId);
  if (!wait) return { surveyId, bundleId, survey: null };

  /** @type {string | null} */
  let stepFailure = null;
  // Step updates and the survey's own (whose `steps` carry their metadata) both bring figures: a
  // client that reconnects after the end only sees the finished survey.
  const collector = new FiguresCollector();
  const final = await followSurvey(client, surveyId, {
    timeoutMs,
    onJob(job) {
      if (job.id !== surveyId && job.status === 'FAILED' && job.message) stepFailure = job.message;
      collector.see(job);
      output.job(job, surveyId);
    },
  });
  if (final.status !== 'COMPLETED') {
    output.done(final, bundleId);
    const why = final.message || stepFailure || 'no message';
    throw new CliError(`survey ${surveyId} ${final.status.toLowerCase()}: ${why} (${final.status})`, { code: final.status });
  }
  const figures = collector.figures();
  const gate = evaluateGate(figures, failOn);
  output.done(final, bundleId, { figures, gate });
  await writeCiFiles(client, surveyId, ciFiles, failOn, output);
  const failed = gateError(gate, surveyId);
  if (failed) throw failed;
  return { surveyId, bundleId, survey: final };
}

/**
 * The uploaded PATH as the repository names it (relative to the working directory, `/`-separated, a
 * directory ending with `/`), or undefined when it is the directory itself or outside it: code
 * scanning places a finding that names no file of its own on the document it came from.
 * @param {string} input
 * @param {boolean} isDirectory
 * @param {string} [cwd]
 */
export function artifactPath(input, isDirectory, cwd = process.cwd()) {
  const rel = path.relative(cwd, path.resolve(cwd, input)).split(path.sep).join('/');
  if (!rel || rel === '..' || rel.startsWith('../') || path.isAbsolute(rel)) return undefined;
  return isDirectory ? `${rel}/` : rel;
}

const CI_FORMATS = /** @type {const} */ ([['sarif', 'SARIF'], ['junit', 'JUnit XML'], ['markdown', 'markdown summary']]);

/**
 * Reads the survey's CI outputs the files name (GET P/v1/survey/{id}/ci, rendered by the service,
 * which reads the reports an upload pass cannot) and writes each file; the gate's tokens go along
 * so JUnit fails what --fail-on names.
 * @param {ServiceClient} client
 * @param {string} surveyId
 * @param {CiFiles} files
 * @param {import('./figures.mjs').GateToken[]} failOn
 * @param {Output} output
 */
export async function writeCiFiles(client, surveyId, files, failOn, output) {
  for (const [format, name] of CI_FORMATS) {
    const file = files[format];
    if (!file) continue;
    const query = new URLSearchParams({
      format, ...(failOn.length ? { failOn: failOn.map((t) => t.token).join(',') } : {}),
      ...(format === 'sarif' && files.artifact ? { path: files.artifact } : {}),
    });
    const text = await client.text(`reading the survey's ${name}`, `v1/survey/${encodeURIComponent(surveyId)}/ci?${query}`);
    try {
      await writeFile(file, text);
    } catch (err) {
      throw new CliError(`writing the ${name} to ${file}: ${/** @type {Error} */ (err).message} (write_failed)`, { code: 'write_failed' });
    }
    output.wrote(name, file);
  }
}

/**
 * The parts must tile the bundle exactly; anything else would upload a different file.
 * @param {UploadStart} start
 * @param {number} size
 */
function checkUploadStart(start, size) {
  const bad = (/** @type {string} */ why) => new CliError(`upload init: ${why} (invalid_answer)`);
  if (!start || typeof start.uploadId !== 'string' || typeof start.blobKey !== 'string') throw bad('the answer lacks uploadId or blobKey');
  if (!Array.isArray(start.parts) || start.parts.length === 0) throw bad('the answer has no parts');
  let offset = 0;
  start.parts.forEach((part, i) => {
    if (part.partNumber !== i + 1 || part.offset !== offset || !(part.size > 0) || typeof part.presignedUrl !== 'string') {
      throw bad(`part ${i + 1} does not follow on from the previous one`);
    }
    offset += part.size;
  });
  if (offset !== size) throw bad(`the parts cover ${offset} bytes, the bundle has ${size}`);
}

/**
 * The line that says how the parts go: `3 parts of 16 MiB (the last 8 MiB), 4 at a time`, and
 * whether the service's answer differs from the part size its runtime settings name.
 * @param {Part[]} parts
 * @param {number} partSizeBytes
 * @param {number} parallel
 */
export function partsPlan(parts, partSizeBytes, parallel) {
  const mib = (/** @type {number} */ n) => (n % MiB === 0 ? `${n / MiB} MiB` : `${n} bytes`);
  const size = parts[0].size;
  const last = parts[parts.length - 1].size;
  const shape = parts.length === 1
    ? `1 part of ${mib(size)}`
    : `${parts.length} parts of ${mib(size)}${last !== size ? ` (the last ${mib(last)})` : ''}`;
  // One part smaller than the part size is the whole bundle, not a different part size.
  const differs = parts.length > 1 ? size !== partSizeBytes : size > partSizeBytes;
  const note = differs ? `; the runtime settings name ${mib(partSizeBytes)} parts, the service answered ${mib(size)}` : '';
  return `uploading ${shape}, ${parallel} at a time (runtime settings)${note}`;
}

/**
 * PUTs every part, `parallel` at a time, each streamed from its byte range of the file.
 * @param {ServiceClient} client
 * @param {Bundle} bundle
 * @param {UploadStart} start
 * @param {Output} output
 * @param {string} jobId
 * @param {number} parallel
 * @returns {Promise<{ partNumber: number, etag: string }[]>}
 */
async function uploadParts(client, bundle, start, output, jobId, parallel) {
  const total = bundle.size;
  const reporter = progressReporter(client, jobId, total);
  /** @type {Map<number, number>} bytes sent by each part's current attempt */
  const sending = new Map();
  let doneBytes = 0;
  const moved = () => {
    let bytes = doneBytes;
    for (const n of sending.values()) bytes += n;
    output.uploadBytes(bytes, total);
    reporter.update(bytes);
  };
  const abort = new AbortController();
  /** @type {unknown} */
  let firstError = null;
  /** @type {{ partNumber: number, etag: string }[]} */
  const etags = [];
  let next = 0;

  /** @param {Part} part */
  async function sendPart(part) {
    const what = `upload part ${part.partNumber}`;
    const url = new URL(part.presignedUrl, `${client.base}/`);
    let res;
    try {
      res = await withRetries(async () => {
        sending.set(part.partNumber, 0);
        const body = readRange(bundle.file, part, (n) => {
          sending.set(part.partNumber, (sending.get(part.partNumber) ?? 0) + n);
          moved();
        });
        try {
          // The URL carries its own short-lived token: no Authorization header.
          const headers = { 'content-length': String(part.size), 'content-type': 'application/octet-stream', 'user-agent': USER_AGENT };
          return await request(url, { method: 'PUT', headers, body, signal: abort.signal });
        } finally {
          sending.set(part.partNumber, 0); // a retry starts the part's bytes over
        }
      }, { signal: abort.signal });
    } catch (err) {
      throw networkError(what, err);
    }
    if (res.status < 200 || res.status >= 300) throw serviceError(what, res);
    const etag = res.headers.etag;
    if (typeof etag !== 'string' || etag === '') throw new CliError(`${what}: the answer carries no ETag header (invalid_answer)`);
    sending.delete(part.partNumber);
    doneBytes += part.size;
    moved();
    return etag;
  }

  async function worker() {
    while (next < start.parts.length && !abort.signal.aborted) {
      const part = start.parts[next++];
      try {
        etags.push({ partNumber: part.partNumber, etag: await sendPart(part) });
      } catch (err) {
        // The first failure is the one to report; the others are the abort it caused.
        firstError ??= err;
        abort.abort();
      }
    }
  }

  output.uploadStart(total);
  await Promise.all(Array.from({ length: Math.min(parallel, start.parts.length) }, worker));
  if (firstError) throw firstError;
  output.uploadEnd(total);
  await reporter.finish();
  return etags.sort((a, b) => a.partNumber - b.partNumber);
}

/**
 * A part's bytes from disk, counted as they are read.
 * @param {string} file
 * @param {Part} part
 * @param {(bytes: number) => void} onBytes
 */
function readRange(file, part, onBytes) {
  const counter = new Transform({
    transform(chunk, _encoding, callback) {
      onBytes(chunk.length);
      callback(null, chunk);
    },
  });
  // pipeline ties the two together: an error or destroy on either side closes the file.
  pipeline(createReadStream(file, { start: part.offset, end: part.offset + part.size - 1 }), counter, () => {});
  return counter;
}

/**
 * Tells the service how far the upload is, at most once a second and once at 100. Reports are
 * best effort: a lost one must not fail an upload whose parts are all arriving.
 * @param {ServiceClient} client
 * @param {string} jobId
 * @param {number} total
 */
function progressReporter(client, jobId, total) {
  let lastAt = -Infinity;
  let lastValue = -1;
  /** @type {Promise<void> | null} */
  let pending = null;
  /** @param {number} progress @param {number} [attempts] */
  const report = (progress, attempts) => {
    pending = client
      .json('report progress', 'PUT', 'bundle/upload/progress', { jobId, progress }, { attempts })
      .then(() => {}, () => {})
      .finally(() => { pending = null; });
    return pending;
  };
  return {
    /** @param {number} bytes */
    update(bytes) {
      // 100 is kept for the end: bytes sent are not yet bytes the service has stored.
      const value = Math.min(99, Math.floor((bytes / total) * 100));
      if (pending || value <= lastValue || Date.now() - lastAt < PROGRESS_EVERY_MS) return;
      lastAt = Date.now();
      lastValue = value;
      void report(value, 1);
    },
    async finish() {
      // Wait for a report in flight so 100 cannot arrive before it.
      if (pending) await pending;
      await report(100);
    },
  };
}

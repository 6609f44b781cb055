// What the user sees. Three forms of one set of happenings: a progress bar on a terminal, plain
// lines in a CI log, and JSON lines (--json) for scripts. Errors always go to stderr.
import cliProgress from 'cli-progress';
import { FINISHED } from './events.mjs';
import { formatFigures } from './figures.mjs';

/** @typedef {import('./events.mjs').Job} Job */
/** @typedef {{ figures: import('./figures.mjs').Figures, gate: import('./figures.mjs').Gate }} Outcome */
/**
 * @typedef {object} Output
 * @property {(line: string) => void} info
 * @property {(settings: import('./runtime.mjs').RuntimeSettings, summary: import('./runtime.mjs').RuntimeSummary | null, input: string) => void} runtime
 *   what a runtime survey's settings did (`summary` null: PATH is a file, uploaded as is)
 * @property {(surveyId: string) => void} survey
 * @property {(total: number) => void} uploadStart
 * @property {(bytes: number, total: number) => void} uploadBytes
 * @property {(total: number) => void} uploadEnd
 * @property {(bundleId: string, surveyId: string) => void} completed
 * @property {(job: Job, surveyId: string) => void} job
 * @property {(survey: Job, bundleId: string, outcome?: Outcome) => void} done `outcome` for a COMPLETED survey
 * @property {(error: { message: string, code?: string | number, jsonEvent?: boolean }) => void} error
 * @property {() => void} interrupt
 * @property {(format: string, file: string) => void} wrote a CI output (--sarif, --junit, --summary-md) written to `file`
 */
/** @typedef {{ write(chunk: string): unknown, isTTY?: boolean, columns?: number }} Stream */

const PLAIN_EVERY_MS = 2000;
const JSON_EVERY_MS = 1000;

/**
 * @param {{ json: boolean, color?: boolean, stdout?: Stream, stderr?: Stream, now?: () => number }} options
 *   `color`: the figures on stdout may be coloured (a terminal, no NO_COLOR; figures.mjs useColor)
 * @returns {Output}
 */
export function createOutput({ json, color = false, stdout = process.stdout, stderr = process.stderr, now = Date.now }) {
  const error = (/** @type {{ message: string }} */ err) => stderr.write(`posture: ${err.message}\n`);
  if (json) return jsonOutput(stdout, error, now);
  return humanOutput(stdout, stderr, error, now, color);
}

/**
 * @param {Stream} stdout
 * @param {(err: { message: string }) => void} error
 * @param {() => number} now
 * @returns {Output}
 */
function jsonOutput(stdout, error, now) {
  const emit = (/** @type {Record<string, unknown>} */ value) => stdout.write(`${JSON.stringify(value)}\n`);
  let lastAt = -Infinity;
  let lastBytes = -1;
  const progress = (/** @type {number} */ bytes, /** @type {number} */ total) => {
    lastAt = now();
    lastBytes = bytes;
    emit({ event: 'progress', bytes, total });
  };
  return {
    info() {},
    runtime: (settings, summary) => emit({
      event: 'runtime', version: settings.version, applied: summary !== null,
      ...(summary && { files: summary.files, read: summary.read, excluded: summary.excluded, merged: summary.merged, overLimit: summary.overLimit, kept: summary.kept }),
      fields: settings.keptFields, maxObservations: settings.sampling.maxObservations,
      upload: { partSizeBytes: settings.upload.partSizeBytes, maxParallelParts: settings.upload.maxParallelParts, maxBundleBytes: settings.upload.maxBundleBytes },
    }),
    survey: (surveyId) => emit({ event: 'survey', surveyId }),
    uploadStart() {},
    uploadBytes(bytes, total) {
      if (bytes !== lastBytes && now() - lastAt >= JSON_EVERY_MS) progress(bytes, total);
    },
    uploadEnd(total) {
      if (lastBytes !== total) progress(total, total);
    },
    completed: (bundleId, surveyId) => emit({ event: 'completed', bundleId, surveyId }),
    job: (job, surveyId) =>
      emit({
        event: 'job', jobId: job.id, surveyId, step: job.id === surveyId ? null : stepName(job),
        status: job.status, progress: job.progress ?? null, message: job.message ?? null,
      }),
    done: (survey, bundleId, outcome) =>
      emit({ event: 'done', status: survey.status, surveyId: survey.id, bundleId, message: survey.message ?? null, ...outcome }),
    wrote: (format, file) => emit({ event: 'wrote', format, file }),
    error(err) {
      if (err.jsonEvent !== false) emit({ event: 'error', message: err.message, code: err.code ?? null });
      error(err);
    },
    interrupt() {},
  };
}

/**
 * @param {Stream} stdout
 * @param {Stream} stderr
 * @param {(err: { message: string }) => void} error
 * @param {() => number} now
 * @param {boolean} color
 * @returns {Output}
 */
function humanOutput(stdout, stderr, error, now, color) {
  const say = (/** @type {string} */ line) => stdout.write(`${line}\n`);
  /** @type {cliProgress.SingleBar | null} */
  let bar = null;
  let startedAt = 0;
  let lastAt = -Infinity;
  /** @type {Map<string, string>} */
  const seen = new Map();
  const fields = (/** @type {number} */ bytes, /** @type {number} */ total) => ({
    amount: `${formatPair(bytes, total)}`,
    speed: `${(bytes / Math.max((now() - startedAt) / 1000, 0.001) / 1e6).toFixed(1)} MB/s`,
  });
  const stopBar = () => {
    bar?.stop();
    bar = null;
  };
  return {
    info: say,
    runtime(settings, summary, input) {
      if (!summary) {
        say(`runtime settings v${settings.version}: ${input} is uploaded as is (records inside a file are not rewritten; upload a directory to apply exclude, fields and sampling)`);
        return;
      }
      const plural = (/** @type {number} */ n, /** @type {string} */ word) => `${n} ${word}${n === 1 ? '' : 's'}`;
      say(`runtime settings v${settings.version}: ${plural(summary.read, 'record')} in ${plural(summary.files, 'file')}: `
        + `${summary.excluded} excluded, ${summary.merged} merged into the count of an equal record, `
        + `${summary.overLimit} over the ${settings.sampling.maxObservations}-record limit; ${summary.kept} kept (${summary.fields.join(', ')})`);
    },
    survey: (surveyId) => say(`survey ${surveyId} started`),
    uploadStart(total) {
      startedAt = now();
      lastAt = startedAt; // the first plain line after a while, not at 0%
      if (!stderr.isTTY) return;
      bar = new cliProgress.SingleBar(
        {
          stream: /** @type {any} */ (stderr),
          format: 'uploading [{bar}] {percentage}% | {amount} | {speed} | ETA {eta_formatted}',
          hideCursor: true, gracefulExit: false, etaBuffer: 50, fps: 10,
        },
        cliProgress.Presets.shades_classic,
      );
      bar.start(total, 0, fields(0, total));
    },
    uploadBytes(bytes, total) {
      if (bar) return bar.update(bytes, fields(bytes, total));
      if (now() - lastAt < PLAIN_EVERY_MS) return;
      lastAt = now();
      say(`uploaded ${formatPair(bytes, total)} (${Math.floor((bytes / total) * 100)}%)`);
    },
    uploadEnd(total) {
      if (bar) {
        bar.update(total, fields(total, total));
        stopBar();
      } else {
        say(`uploaded ${formatPair(total, total)} (100%)`);
      }
    },
    completed: (bundleId, surveyId) => say(`bundle ${bundleId} uploaded; survey ${surveyId} queued`),
    job(job, surveyId) {
      // Only changes of status: a stream may repeat a job's state (e.g. on reconnect). The
      // survey's final status is the `done` line.
      if (seen.get(job.id) === job.status || (job.id === surveyId && FINISHED.has(job.status))) return;
      seen.set(job.id, job.status);
      const who = job.id === surveyId ? `survey ${surveyId}` : `  step ${stepName(job)}`;
      const detail = job.status === 'FAILED' && job.message ? `: ${job.message}` : '';
      say(`${who}: ${job.status}${detail}`);
    },
    done(survey, _bundleId, outcome) {
      say(`survey ${survey.id} ${survey.status}`);
      if (!outcome) return;
      // A terminal's width (CI logs have none: 80), capped so the block stays a block.
      const width = stdout.isTTY && stdout.columns ? Math.min(stdout.columns, 100) : 80;
      for (const line of formatFigures(outcome.figures, outcome.gate, { color, width })) say(line);
    },
    wrote: (format, file) => say(`wrote the ${format} to ${file}`),
    error(err) {
      stopBar();
      error(err);
    },
    interrupt: stopBar,
  };
}

/** @param {Job} job */
function stepName(job) {
  return String(job.step_label ?? job.step_type ?? job.type ?? job.id);
}

const UNITS = /** @type {const} */ ([['GiB', 1024 ** 3], ['MiB', 1024 ** 2], ['KiB', 1024], ['B', 1]]);

/**
 * `48/512 MiB`: both amounts in the unit that suits the total.
 * @param {number} bytes
 * @param {number} total
 */
export function formatPair(bytes, total) {
  const [unit, size] = UNITS.find(([, s]) => total >= s) ?? UNITS[3];
  const digits = total / size >= 100 || size === 1 ? 0 : 1;
  const scale = 10 ** digits;
  const show = (/** @type {number} */ n) => (Math.floor((n / size) * scale) / scale).toFixed(digits);
  return `${show(bytes)}/${show(total)} ${unit}`;
}

/** @param {number} bytes */
export function formatSize(bytes) {
  return formatPair(bytes, bytes).split('/')[1];
}

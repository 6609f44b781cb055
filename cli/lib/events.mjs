// Following a survey on `GET P/survey/{surveyId}/events` (server-sent events) until it finishes,
// reconnecting whenever the stream ends first.
import { setTimeout as sleep } from 'node:timers/promises';
import { CliError } from './errors.mjs';
import { isNetworkError, isRetryableStatus, networkError, retryAfterMs, send, serviceError } from './http.mjs';

/** @typedef {import('./api.mjs').ServiceClient} ServiceClient */
/** @typedef {{ event: string, data: string, id: string }} SseEvent */
/**
 * A job as the stream sends it (snake_case, spec part 2).
 * @typedef {{ id: string, type?: string, status: string, progress?: number, message?: string | null,
 *   parent_id?: string | null, step_type?: string, step_label?: string, steps?: Job[] } & Record<string, unknown>} Job
 */

export const FINISHED = new Set(['COMPLETED', 'FAILED', 'SKIPPED']);
const MAX_RECONNECT_MS = 30_000;

/**
 * An incremental parser of the text/event-stream format (WHATWG HTML, "server-sent events"):
 * any line ending (CRLF, LF, CR, even split across chunks), comments, multi-line data, `id`, `retry`.
 */
export class SseParser {
  /** @param {(event: SseEvent) => void} onEvent */
  constructor(onEvent) {
    this.onEvent = onEvent;
    this.lastEventId = '';
    /** @type {number | undefined} the reconnection delay the server asked for */
    this.retry = undefined;
    this.partial = '';
    this.skipLineFeed = false;
    this.started = false;
    this.type = '';
    /** @type {string[]} */
    this.data = [];
  }

  /** @param {string} text */
  feed(text) {
    if (!this.started && text.length > 0) {
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    let start = 0;
    if (this.skipLineFeed && text[0] === '\n') start = 1;
    this.skipLineFeed = false;
    for (let i = start; i < text.length; i++) {
      const c = text[i];
      if (c !== '\n' && c !== '\r') continue;
      const line = this.partial + text.slice(start, i);
      this.partial = '';
      if (c === '\r') {
        if (i + 1 === text.length) this.skipLineFeed = true; // a CRLF may be split across chunks
        else if (text[i + 1] === '\n') i++;
      }
      start = i + 1;
      this.line(line);
    }
    this.partial += text.slice(start);
  }

  /** @param {string} line */
  line(line) {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return; // comment: `: connected`, `: heartbeat`
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.type = value;
    else if (field === 'data') this.data.push(value);
    else if (field === 'id' && !value.includes('\0')) this.lastEventId = value;
    else if (field === 'retry' && /^\d+$/.test(value)) this.retry = Number(value);
  }

  dispatch() {
    const event = { event: this.type || 'message', data: this.data.join('\n'), id: this.lastEventId };
    const hasData = this.data.length > 0;
    this.type = '';
    this.data = [];
    if (hasData) this.onEvent(event);
  }
}

/**
 * Follows the survey's events until the survey is COMPLETED, FAILED or SKIPPED, or `timeoutMs`
 * runs out. Every `job-update` (the survey and its steps) goes to `onJob`.
 * @param {ServiceClient} client
 * @param {string} surveyId
 * @param {{ timeoutMs: number, onJob?: (job: Job) => void, idleTimeoutMs?: number }} options
 * @returns {Promise<Job>} the survey in its finished state
 */
export async function followSurvey(client, surveyId, { timeoutMs, onJob, idleTimeoutMs = 90_000 }) {
  const what = `wait for survey ${surveyId}`;
  const deadline = AbortSignal.timeout(timeoutMs);
  const url = client.projectUrl(`survey/${encodeURIComponent(surveyId)}/events`);
  let lastEventId = '';
  let reconnectMs = 1000;
  let failures = 0;
  const pause = (/** @type {number | null} */ ms) =>
    sleep(ms ?? Math.min(reconnectMs * 2 ** Math.max(failures - 1, 0), MAX_RECONNECT_MS), undefined, { signal: deadline });
  try {
    for (;;) {
      /** @type {Record<string, string>} */
      const headers = client.headers({ accept: 'text/event-stream', 'cache-control': 'no-cache' });
      if (lastEventId) headers['last-event-id'] = lastEventId;
      let res;
      try {
        // The heartbeat comes every 25 s: a silence well past that is a dead connection.
        res = await send(url, { headers, signal: deadline, idleTimeoutMs });
      } catch (err) {
        if (deadline.aborted || !isNetworkError(err)) throw err;
        failures++;
        await pause(null);
        continue;
      }
      const status = res.statusCode ?? 0;
      if (status !== 200) {
        const body = await readAll(res).catch(() => Buffer.alloc(0));
        if (!isRetryableStatus(status)) throw serviceError(what, { status, headers: res.headers, body });
        failures++;
        await pause(retryAfterMs(res.headers['retry-after']));
        continue;
      }
      if (!String(res.headers['content-type'] ?? '').includes('text/event-stream')) {
        res.destroy();
        throw new CliError(`${what}: the service did not answer an event stream (invalid_answer)`);
      }
      /** @type {Job | null} */
      let finished = null;
      const parser = new SseParser((event) => {
        if (event.event !== 'job-update') return;
        let job;
        try {
          job = JSON.parse(event.data);
        } catch {
          return; // one unreadable event must not end the wait
        }
        failures = 0;
        onJob?.(job);
        if (job?.id === surveyId && FINISHED.has(job.status)) finished = job;
      });
      failures++;
      try {
        res.setEncoding('utf8');
        for await (const chunk of res) {
          parser.feed(chunk);
          if (finished) break;
        }
      } catch (err) {
        if (deadline.aborted) throw err;
        // A stream cut mid-way is what reconnecting is for.
      }
      if (finished) return finished;
      lastEventId = parser.lastEventId || lastEventId;
      if (parser.retry !== undefined) reconnectMs = parser.retry;
      await pause(null);
    }
  } catch (err) {
    if (deadline.aborted) {
      throw new CliError(`${what}: timed out after ${Math.round(timeoutMs / 1000)} s before the survey finished (timeout)`, { code: 'timeout' });
    }
    throw networkError(what, err);
  }
}

/** @param {import('node:http').IncomingMessage} res */
async function readAll(res) {
  /** @type {Buffer[]} */
  const chunks = [];
  for await (const chunk of res) chunks.push(chunk);
  return Buffer.concat(chunks);
}

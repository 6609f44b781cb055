// HTTP with node:http(s) rather than fetch: part uploads need an exact Content-Length on a streamed
// body, and the event stream needs an idle timeout on the socket. Retries live here too.
import http from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { CliError } from './errors.mjs';

/** @typedef {import('node:http').IncomingMessage} IncomingMessage */
/** @typedef {{ status: number, headers: import('node:http').IncomingHttpHeaders, body: Buffer }} HttpResponse */
/**
 * @typedef {object} RequestOptions
 * @property {string} [method]
 * @property {Record<string, string | number>} [headers]
 * @property {Buffer | string | Readable} [body] a Readable is streamed: give its Content-Length
 * @property {AbortSignal} [signal]
 * @property {number} [idleTimeoutMs] the socket may stay silent this long before the call fails
 */

export const RETRY = { attempts: 5, baseDelayMs: 500, maxDelayMs: 30_000, maxRetryAfterMs: 120_000 };

// Failures where the same request may well succeed a moment later. A name that does not resolve
// (ENOTFOUND) is left out: it is almost always a mistyped --api.
const NETWORK_CODES = new Set([
  'ECONNRESET', 'ECONNREFUSED', 'ECONNABORTED', 'EPIPE', 'ETIMEDOUT', 'EAI_AGAIN', 'ENETUNREACH',
  'EHOSTUNREACH', 'ENETDOWN', 'ERR_STREAM_PREMATURE_CLOSE',
]);

/** @param {unknown} err */
export function isNetworkError(err) {
  return err instanceof Error && NETWORK_CODES.has(/** @type {any} */ (err).code);
}

/** @param {number} status */
export function isRetryableStatus(status) {
  return status === 429 || status >= 500;
}

/**
 * Sends one request and resolves as soon as the answer's headers arrive (for streams).
 * @param {string | URL} url
 * @param {RequestOptions} [options]
 * @returns {Promise<IncomingMessage>}
 */
export function send(url, { method = 'GET', headers = {}, body, signal, idleTimeoutMs = 120_000 } = {}) {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const lib = target.protocol === 'https:' ? https : http;
    const req = lib.request(target, { method, headers, signal });
    req.setTimeout(idleTimeoutMs, () => {
      req.destroy(Object.assign(new Error(`no answer for ${Math.round(idleTimeoutMs / 1000)} s`), { code: 'ETIMEDOUT' }));
    });
    req.on('error', reject);
    req.on('response', resolve);
    if (body instanceof Readable) {
      // An early answer or a reset must not leave the file open or the error unheard.
      body.on('error', (err) => req.destroy(err));
      req.on('close', () => body.destroy());
      body.pipe(req);
    } else {
      req.end(body);
    }
  });
}

/**
 * Sends one request and reads the whole answer.
 * @param {string | URL} url
 * @param {RequestOptions} [options]
 * @returns {Promise<HttpResponse>}
 */
export async function request(url, options = {}) {
  const res = await send(url, options);
  return new Promise((resolve, reject) => {
    /** @type {Buffer[]} */
    const chunks = [];
    res.on('data', (chunk) => chunks.push(chunk));
    res.on('error', reject);
    res.on('close', () => {
      if (!res.complete) reject(Object.assign(new Error('connection closed before the answer ended'), { code: 'ECONNRESET' }));
    });
    res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
  });
}

/**
 * Milliseconds a `Retry-After` header asks for (seconds or an HTTP date), or null.
 * @param {string | string[] | undefined} value
 */
export function retryAfterMs(value) {
  if (typeof value !== 'string' || value.trim() === '') return null;
  const ms = /^\d+$/.test(value.trim()) ? Number(value.trim()) * 1000 : Date.parse(value) - Date.now();
  if (Number.isNaN(ms)) return null;
  return Math.min(Math.max(ms, 0), RETRY.maxRetryAfterMs);
}

/** Exponential backoff with jitter: about 0.5, 1, 2, 4 s ... capped. @param {number} attempt 1-based */
export function backoffMs(attempt) {
  const ceiling = Math.min(RETRY.baseDelayMs * 2 ** (attempt - 1), RETRY.maxDelayMs);
  return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}

/**
 * Runs `attempt` until it answers something other than 429/5xx, a network error, or the attempts
 * run out; the last answer (or error) is the caller's to judge. `attempt` must rebuild its body.
 * @param {(n: number) => Promise<HttpResponse>} attempt
 * @param {{ attempts?: number, signal?: AbortSignal, onRetry?: (info: { attempt: number, status?: number, error?: unknown, waitMs: number }) => void }} [options]
 * @returns {Promise<HttpResponse & { attempts: number }>}
 */
export async function withRetries(attempt, { attempts = RETRY.attempts, signal, onRetry } = {}) {
  for (let n = 1; ; n++) {
    /** @type {HttpResponse | undefined} */
    let res;
    try {
      res = await attempt(n);
    } catch (err) {
      if (signal?.aborted || !isNetworkError(err) || n >= attempts) throw Object.assign(/** @type {Error} */ (err), { attempts: n });
      const waitMs = backoffMs(n);
      onRetry?.({ attempt: n, error: err, waitMs });
      await sleep(waitMs, undefined, { signal });
      continue;
    }
    if (!isRetryableStatus(res.status) || n >= attempts) return { ...res, attempts: n };
    const waitMs = retryAfterMs(res.headers['retry-after']) ?? backoffMs(n);
    onRetry?.({ attempt: n, status: res.status, waitMs });
    await sleep(waitMs, undefined, { signal });
  }
}

/**
 * The service's error answer as one line: `<what>: <error> (<code>)`.
 * @param {string} what
 * @param {HttpResponse & { attempts?: number }} res
 */
export function serviceError(what, res) {
  let message = http.STATUS_CODES[res.status] ?? 'unexpected answer';
  /** @type {string | number} */
  let code = res.status;
  try {
    const body = JSON.parse(res.body.toString('utf8'));
    if (body && typeof body.error === 'string') message = body.error;
    if (body && typeof body.code === 'string') code = body.code;
    const detail = body?.parameter ? `parameter ${body.parameter}` : body?.permission ? `permission ${body.permission}` : null;
    if (detail) message += ` [${detail}]`;
  } catch {
    const text = res.body.toString('utf8').trim().split('\n')[0]?.slice(0, 200);
    if (text) message = `HTTP ${res.status}: ${text}`;
  }
  return new CliError(`${what}${gaveUp(res.attempts)}: ${message} (${code})`, { code });
}

/**
 * A network failure as one line: `<what>: <reason> (<errno code>)`.
 * @param {string} what
 * @param {unknown} err
 */
export function networkError(what, err) {
  if (err instanceof CliError) return err;
  const e = /** @type {Error & { code?: string, attempts?: number }} */ (err);
  return new CliError(`${what}${gaveUp(e.attempts)}: ${e.message} (${e.code ?? 'network_error'})`, { code: e.code });
}

/** @param {number | undefined} attempts */
function gaveUp(attempts) {
  return attempts && attempts > 1 ? ` (gave up after ${attempts} attempts)` : '';
}

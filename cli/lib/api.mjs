// The service's JSON operations as the upload pass sees them: one base URL, one project, one pass.
import { UsageError, CliError } from './errors.mjs';
import { networkError, request, serviceError, withRetries } from './http.mjs';
import { USER_AGENT } from './version.mjs';

/**
 * The service's origin (and any path prefix) from `--api`; a trailing `/api/v1` is accepted too.
 * @param {string} api
 */
export function normalizeApi(api) {
  let url;
  try {
    url = new URL(api);
  } catch {
    throw new UsageError(`--api: not a URL: ${api}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--api: must be an http(s) URL: ${api}`);
  const path = url.pathname.replace(/\/+$/, '').replace(/\/api\/v1$/, '');
  return `${url.origin}${path}`;
}

export class ServiceClient {
  /** @param {{ api: string, projectId: string, pass: string }} options */
  constructor({ api, projectId, pass }) {
    this.base = normalizeApi(api);
    this.projectId = projectId;
    this.pass = pass;
  }

  /** @param {string} path below `/api/v1/project/{projectId}/` */
  projectUrl(path) {
    return `${this.base}/api/v1/project/${encodeURIComponent(this.projectId)}/${path}`;
  }

  /** Headers every call with the pass carries. @param {Record<string, string>} [extra] */
  headers(extra = {}) {
    return { authorization: `Bearer ${this.pass}`, 'user-agent': USER_AGENT, ...extra };
  }

  /**
   * One JSON call, retried on 429/5xx/network errors with the SAME idempotency key, so a retry of a
   * call whose answer was lost is answered from the service's record instead of acting twice.
   * @param {string} what names the step in error messages
   * @param {string} method
   * @param {string} path
   * @param {unknown} [body]
   * @param {{ idempotencyKey?: string, attempts?: number, signal?: AbortSignal }} [options]
   * @returns {Promise<any>}
   */
  async json(what, method, path, body, { idempotencyKey, attempts, signal } = {}) {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    /** @type {Record<string, string>} */
    const extra = { accept: 'application/json' };
    if (payload) Object.assign(extra, { 'content-type': 'application/json', 'content-length': String(payload.length) });
    if (idempotencyKey) extra['idempotency-key'] = idempotencyKey;
    const headers = this.headers(extra);
    let res;
    try {
      res = await withRetries(() => request(this.projectUrl(path), { method, headers, body: payload, signal }), { attempts, signal });
    } catch (err) {
      throw networkError(what, err);
    }
    if (res.status < 200 || res.status >= 300) throw serviceError(what, res);
    if (res.body.length === 0) return null;
    try {
      return JSON.parse(res.body.toString('utf8'));
    } catch {
      throw new CliError(`${what}: the service answered ${res.status} with a body that is not JSON (invalid_answer)`);
    }
  }

  /**
   * One GET whose answer is a document (SARIF, JUnit XML, markdown), retried like `json`.
   * @param {string} what names the step in error messages
   * @param {string} path
   * @returns {Promise<string>}
   */
  async text(what, path) {
    const headers = this.headers();
    let res;
    try {
      res = await withRetries(() => request(this.projectUrl(path), { method: 'GET', headers }));
    } catch (err) {
      throw networkError(what, err);
    }
    if (res.status < 200 || res.status >= 300) throw serviceError(what, res);
    return res.body.toString('utf8');
  }
}

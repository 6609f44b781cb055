// The job stream passed through to the surveys page (spec part 6). EventSource and htmx's hx-sse cannot
// send an Authorization header, so the page connects here with its cookie; this route opens the API's
// `GET P/v1/job/stream` with the page's session and turns each `job-update` of a top-level job into the
// HTML of its row, swapped out of band by hx-sse (`<tr id="job-…" hx-swap-oob>`): progress and steps
// change in place, and on the list's first page a new job matching the filters is put on top. A status
// change is also the message's main content, which the page's polite live region announces.
//
// The API's stream closes after an hour; hx-sse then reconnects (its default for `hx-sse:connect`,
// with back-off) and sends the last message's `id`, the newest job already put on top, so a reconnect
// neither repeats nor loses a new row. Each connection first sends the rows of the page as they are
// now (one list call), covering what changed between the page's load (or a paused background tab) and
// the stream's opening.
import { api, ApiRefusal } from '../../api';
import type { DashContext } from '../../context';
import { JobState } from './job';
import { apiQuery, JobRow, jobName, typesOf, type Filters, type Job, type JobPage } from './views';
import { UUID_PATTERN } from '../../../lib/ids';

const encoder = new TextEncoder();

/** One SSE message: the id hx-sse sends back on reconnect, and HTML as data lines. */
const message = (id: string | null, html: string) =>
  encoder.encode(`${id ? `id: ${id}\n` : ''}${html.split(/\r\n|\r|\n/).map((line) => `data: ${line}`).join('\n')}\n\n`);

interface LiveOptions {
  projectId: string;
  filters: Filters;
  /** The newest job shown when the page is the list's first page (new jobs go on top), else null. */
  newest: string | null;
  /** A job's own page instead of the list: only its state is swapped. */
  jobId?: string;
}

/** Opens the API's job stream with the page's session; a refusal becomes the error page (404 for another organization's project). */
async function openApiStream(c: DashContext, projectId: string): Promise<Response> {
  const headers = new Headers({ authorization: `Bearer ${c.var.session}`, accept: 'text/event-stream', 'x-request-id': c.var.requestId });
  const client = c.req.header('cf-connecting-ip');
  if (client) headers.set('cf-connecting-ip', client);
  c.set('apiCalls', (c.var.apiCalls ?? 0) + 1);
  const res = await c.var.entry(new Request(new URL(`/api/v1/project/${projectId}/v1/job/stream`, c.req.url), { headers }), c.env, c.executionCtx as ExecutionContext);
  if (res.status !== 200 || !res.body) {
    const body = await res.json().catch(() => null);
    throw new ApiRefusal(res.status, body as never, res.headers);
  }
  return res;
}

export async function liveStream(c: DashContext, options: LiveOptions): Promise<Response> {
  const { projectId, filters } = options;
  const timezone = c.var.frame.timezone;
  const upstream = await openApiStream(c, projectId);
  // What the page may hold now: its rows as they are (after the stream opened, so nothing falls between).
  const calls = api(c);
  let current: JobPage;
  try {
    current = options.jobId
      ? { jobs: [await calls.get<Job>(`/api/v1/project/${projectId}/v1/job/${options.jobId}`)], pagination: { firstId: null, lastId: null, hasMore: false, total: 1 } }
      : await calls.get<JobPage>(`/api/v1/project/${projectId}/v1/job?${apiQuery(filters)}`);
  } catch (refused) {
    // The API's stream is closed, not left open behind a page that failed.
    await upstream.body?.cancel().catch(() => undefined);
    throw refused;
  }

  // The newest job already on top of the page: the page's, or the last message's id after a reconnect.
  const resumed = c.req.header('last-event-id');
  let newest = options.newest;
  if (newest && resumed && UUID_PATTERN.test(resumed) && resumed.toLowerCase() > newest) newest = resumed.toLowerCase();
  const statuses = new Map<string, string>();
  const types = typesOf(filters);
  const matches = (job: Job) =>
    (!types.length || types.includes(job.type)) && (!filters.status || job.status === filters.status) && (filters.deleted || !job.deleted_at);

  /** The row's HTML for one job: replaced in place, or put on top when new; null when not for this page. */
  const rowOf = (job: Job, quiet = false): string | null => {
    if (job.parent_id) return null;
    if (options.jobId && job.id !== options.jobId) return null;
    const previous = statuses.get(job.id);
    statuses.set(job.id, job.status);
    const announce = !quiet && previous !== undefined && previous !== job.status ? `${escapeText(jobName(job))}: ${job.status}.` : '';
    if (options.jobId) return `${String(JobState({ job, projectId, timezone, oob: 'true' }))}${announce}`;
    if (newest && job.id > newest) {
      if (!matches(job)) return null;
      newest = job.id;
      // Table parts parse as a template's content only in this order: the rows' body, then the empty list's.
      const html = `<tbody hx-swap-oob="afterbegin:#jobs-rows">${JobRow({ job, projectId, timezone })}</tbody><tbody id="jobs-empty" hx-swap-oob="delete"></tbody>`;
      if (!quiet) return `${html}New: ${escapeText(jobName(job))}, ${job.status}.`;
      return html;
    }
    return String(JobRow({ job, projectId, timezone, oob: 'true' })) + announce;
  };

  /** One block of the API's stream as what the page gets: a heartbeat, a row, or nothing. */
  const transform = (block: string): Uint8Array | null => {
    // Heartbeats keep the connection (and any proxy) awake.
    if (block.startsWith(':')) return block.includes('heartbeat') ? encoder.encode(': heartbeat\n\n') : null;
    if (!/^event: job-update$/m.test(block)) return null;
    const data = block.split('\n').filter((line) => line.startsWith('data:')).map((line) => line.slice(5).replace(/^ /, '')).join('\n');
    try {
      const html = rowOf(JSON.parse(data) as Job);
      return html ? message(newest, html) : null;
    } catch {
      return null;
    }
  };

  const reader = upstream.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(': connected\n\n'));
      // Oldest first, so rows put on top end newest first.
      const rows = [...current.jobs].reverse().map((job) => rowOf(job, true)).filter((html): html is string => html !== null);
      if (rows.length) controller.enqueue(message(newest, rows.join('')));
    },
    async pull(controller) {
      // Read until something was sent: a pull that enqueues nothing would not be called again.
      for (;;) {
        const { done, value } = await reader.read().catch(() => ({ done: true as const, value: undefined }));
        if (done) {
          controller.close();
          return;
        }
        buffer += decoder.decode(value, { stream: true });
        let sent = false;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const out = transform(block);
          if (out) {
            controller.enqueue(out);
            sent = true;
          }
        }
        if (sent) return;
      }
    },
    cancel() {
      return reader.cancel().catch(() => undefined);
    },
  });
  return new Response(stream, {
    headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' },
  });
}

const escapeText = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

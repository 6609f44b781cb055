// The job stream (spec part 6): every open stream of a project lives in its Durable Object, which
// writes a `job-update` event to each on every change of a job. Writes are not awaited: a client
// that went away is only noticed when a write fails, and is then dropped (RUNTIME-NOTES).
import type { JobAnswer } from './jobs';

export const HEARTBEAT_MS = 25_000;
export const STREAM_LIFETIME_MS = 60 * 60_000;

const encoder = new TextEncoder();

interface Listener {
  writer: WritableStreamDefaultWriter<Uint8Array>;
  /** Which jobs this stream wants (all, or one survey and its steps). */
  accepts: (job: JobAnswer) => boolean;
  /** Close after this job update (a survey's own stream ends when the survey finishes). */
  endsWith?: (job: JobAnswer) => boolean;
  timers: ReturnType<typeof setTimeout>[];
}

export function sseEvent(event: string, data: unknown): Uint8Array {
  return encoder.encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

export class JobHub {
  private readonly listeners = new Set<Listener>();

  constructor(private readonly timing = { heartbeatMs: HEARTBEAT_MS, lifetimeMs: STREAM_LIFETIME_MS }) {}

  get size(): number {
    return this.listeners.size;
  }

  /**
   * Opens a stream: `: connected`, then the `initial` jobs, then every accepted change; a heartbeat
   * comment every 25 s; closed after an hour (or when `endsWith` says so).
   */
  open(options: { accepts: Listener['accepts']; endsWith?: Listener['endsWith']; initial?: JobAnswer[] } = { accepts: () => true }): Response {
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    const writer = writable.getWriter();
    const listener: Listener = { writer, accepts: options.accepts, endsWith: options.endsWith, timers: [] };
    this.listeners.add(listener);
    this.write(listener, encoder.encode(': connected\n\n'));
    let ended = false;
    for (const job of options.initial ?? []) {
      this.write(listener, sseEvent('job-update', job));
      if (listener.endsWith?.(job)) ended = true;
    }
    if (ended) this.close(listener);
    else {
      const heartbeat = setInterval(() => this.write(listener, encoder.encode(': heartbeat\n\n')), this.timing.heartbeatMs);
      listener.timers.push(heartbeat as unknown as ReturnType<typeof setTimeout>, setTimeout(() => this.close(listener), this.timing.lifetimeMs));
    }
    return new Response(readable, {
      headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform', 'x-accel-buffering': 'no' },
    });
  }

  /** Sends a changed job to every stream that wants it. */
  broadcast(job: JobAnswer): void {
    const event = sseEvent('job-update', job);
    for (const listener of this.listeners) {
      if (!listener.accepts(job)) continue;
      this.write(listener, event);
      if (listener.endsWith?.(job)) this.close(listener);
    }
  }

  private write(listener: Listener, chunk: Uint8Array): void {
    listener.writer.write(chunk).catch(() => this.drop(listener));
  }

  private close(listener: Listener): void {
    this.drop(listener);
    listener.writer.close().catch(() => undefined);
  }

  private drop(listener: Listener): void {
    for (const timer of listener.timers) clearTimeout(timer), clearInterval(timer as unknown as ReturnType<typeof setInterval>);
    this.listeners.delete(listener);
  }
}

// JSON answers that may travel compressed: large stored reads are gzip-compressed once in the project
// object (src/project/answer-cache.ts) and sent as they are to callers that accept gzip.
import type { Context } from 'hono';
import { accepts } from 'hono/accepts';

/** What a read answers: JSON text, or the same text gzip-compressed when the caller accepts it. */
export type StoredAnswer = { text: string } | { gzip: Uint8Array };

/** Whether the caller takes gzip (Accept-Encoding names it with q > 0; browsers, curl --compressed, fetch in Node). */
export const acceptsGzip = (c: Context) => accepts(c, { header: 'Accept-Encoding', supports: ['gzip'], default: 'identity' }) === 'gzip';

/**
 * A 200 JSON answer. Compressed bytes go out as they are: `encodeBody: 'manual'` tells the runtime they
 * are encoded already, so neither it nor the edge compresses them again (an edge that meets a client
 * without gzip decodes them for it).
 */
export function jsonAnswer(answer: StoredAnswer): Response {
  const headers = { 'content-type': 'application/json', vary: 'Accept-Encoding' };
  if ('text' in answer) return new Response(answer.text, { headers });
  return new Response(answer.gzip, { headers: { ...headers, 'content-encoding': 'gzip' }, encodeBody: 'manual' });
}

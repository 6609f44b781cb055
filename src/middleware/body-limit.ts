// A body of at most `max` bytes, refused as a 400 naming the limit before anything reads it: a declared
// Content-Length over it, or a body without one that grows past it while it is read.
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../lib/context';
import { invalidRequest } from '../lib/errors';
import { concatBytes } from '../lib/bytes';

const mib = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MiB`;

export function bodyAtMost(max: number, what: string): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const raw = c.req.raw;
    const declared = raw.headers.get('content-length');
    const tooLarge = () => invalidRequest(`${what} is at most ${mib(max)}.`);
    if (declared !== null) {
      if (Number(declared) > max) throw tooLarge();
    } else if (raw.body) {
      const parts: Uint8Array[] = [];
      let size = 0;
      for await (const chunk of raw.body as unknown as AsyncIterable<Uint8Array>) {
        size += chunk.byteLength;
        if (size > max) throw tooLarge();
        parts.push(chunk);
      }
      c.req.raw = new Request(raw.url, { method: raw.method, headers: raw.headers, body: concatBytes(parts) });
    }
    await next();
  };
}

// Which methods a path answers, from the app's own route table: the 405 answer's `Allow` header.
import type { Hono } from 'hono';

const cache = new WeakMap<object, { pattern: RegExp; method: string }[]>();

function compile(app: Hono<any>) {
  let table = cache.get(app);
  if (!table) {
    table = app.routes
      .filter((r) => r.method !== 'ALL' && !r.path.endsWith('*'))
      .map((r) => ({
        method: r.method,
        pattern: new RegExp(`^${r.path.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\/:[^/]+/g, '/[^/]+')}/?$`),
      }));
    cache.set(app, table);
  }
  return table;
}

export function methodsForPath(app: Hono<any>, path: string): string[] {
  const methods = new Set(compile(app).filter((r) => r.pattern.test(path)).map((r) => r.method));
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort();
}

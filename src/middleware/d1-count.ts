// Local instances only (a DEV_SECRET is set): counts the control-database round trips a request
// makes and answers them in `Server-Timing: d1;desc="N queries"`, so benches can check how many D1
// queries an operation costs (bench:scoring's simulation). Every statement run (`first`, `all`, `run`,
// `raw`) and every batch counts once, in sessions too. Production never pays for the wrapping.
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../lib/context';

interface Tally {
  queries: number;
}

const RUNS = new Set(['first', 'all', 'run', 'raw']);

/** Proxies keep the real objects' identity for the binding: batch() gets the real statements back. */
const realOf = new WeakMap<object, D1PreparedStatement>();

function countedStatement(statement: D1PreparedStatement, tally: Tally): D1PreparedStatement {
  const proxy = new Proxy(statement, {
    get(target, name) {
      const value = Reflect.get(target, name, target) as unknown;
      if (typeof value !== 'function') return value;
      if (name === 'bind') return (...values: unknown[]) => countedStatement(target.bind(...values), tally);
      if (RUNS.has(String(name))) return (...args: unknown[]) => { tally.queries++; return (value as (...a: unknown[]) => unknown).apply(target, args); };
      return (value as (...a: unknown[]) => unknown).bind(target);
    },
  });
  realOf.set(proxy, statement);
  return proxy;
}

function countedDb<T extends D1Database | D1DatabaseSession>(db: T, tally: Tally): T {
  return new Proxy(db, {
    get(target, name) {
      const value = Reflect.get(target, name, target) as unknown;
      if (typeof value !== 'function') return value;
      if (name === 'prepare') return (query: string) => countedStatement(target.prepare(query), tally);
      if (name === 'batch') {
        return (statements: D1PreparedStatement[]) => { tally.queries++; return target.batch(statements.map((s) => realOf.get(s) ?? s)); };
      }
      if (name === 'withSession') return (constraint?: string) => countedDb((target as D1Database).withSession(constraint), tally);
      return (value as (...a: unknown[]) => unknown).bind(target);
    },
  });
}

export function countD1Queries(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!c.env.DEV_SECRET || !c.env.DB) return next();
    const tally: Tally = { queries: 0 };
    c.env = { ...c.env, DB: countedDb(c.env.DB, tally) };
    await next();
    c.header('Server-Timing', `d1;desc="${tally.queries} queries"`, { append: true });
  };
}

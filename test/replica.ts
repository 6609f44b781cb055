// A read replica that lags, for tests: local D1 has no replicas, so `withSession` always reads the
// primary there. This control database answers every session the way production's may: one opened
// with `first-primary` reads the primary, any other (`first-unconstrained`, a client's bookmark) reads
// REPLICA_DB, which holds what the primary held at the last `syncReplica()`. Every query still runs
// on real D1; only where a session's reads land is chosen here, as replication would choose it.
import { applyD1Migrations } from 'cloudflare:test';
import { env } from 'cloudflare:workers';

let migrated = false;

/** Copies the primary's control tables (not the vulnerability data) into the replica: it is now "caught up". */
export async function syncReplica(): Promise<void> {
  if (!migrated) {
    await applyD1Migrations(env.REPLICA_DB, env.TEST_MIGRATIONS);
    migrated = true;
  }
  const { results: tables } = await env.DB.prepare(
    `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'
       AND name NOT LIKE 'd1_%' AND name NOT LIKE 'vuln_%'`,
  ).all<{ name: string }>();
  for (const { name } of tables) {
    const { results: rows } = await env.DB.prepare(`SELECT * FROM "${name}"`).all<Record<string, unknown>>();
    const statements = [env.REPLICA_DB.prepare(`DELETE FROM "${name}"`)];
    for (const row of rows) {
      const columns = Object.keys(row);
      statements.push(env.REPLICA_DB.prepare(`INSERT INTO "${name}" (${columns.map((c) => `"${c}"`).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`)
        .bind(...columns.map((c) => row[c] ?? null)));
    }
    await env.REPLICA_DB.batch(statements);
  }
}

// A replica session's statement: reads run on the replica, writes on the primary (as D1 routes them).
class RoutedStatement {
  constructor(readonly real: D1PreparedStatement, readonly onPrimary: boolean) {}
  bind(...values: unknown[]) { return new RoutedStatement(this.real.bind(...values), this.onPrimary); }
  first<T>(column?: string) { return column === undefined ? this.real.first<T>() : this.real.first<T>(column); }
  all<T>() { return this.real.all<T>(); }
  run<T>() { return this.real.run<T>(); }
  raw<T>(options?: { columnNames?: boolean }) { return this.real.raw<T>(options as { columnNames: true }); }
}

const READ = /^\s*(select|with)\b/i;

function replicaSession(): D1DatabaseSession {
  const replica = env.REPLICA_DB.withSession('first-primary');
  return {
    prepare: (query: string) => new RoutedStatement(READ.test(query) ? replica.prepare(query) : env.DB.prepare(query), !READ.test(query)),
    batch: async (statements: RoutedStatement[]) => {
      const onPrimary = statements.some((s) => s.onPrimary);
      if (onPrimary && !statements.every((s) => s.onPrimary)) throw new Error('test/replica.ts: a batch mixing reads and writes on a replica session');
      return (onPrimary ? env.DB : replica).batch(statements.map((s) => s.real));
    },
    // The replica as of the last sync: a bookmark that no answer of the primary has given.
    getBookmark: () => '00000000-00000000-00000000-00000000000000000000000000000000',
  } as unknown as D1DatabaseSession;
}

/**
 * The control database as a replicated deployment has it: sessions opened with `first-primary` read
 * the primary, any other the replica. `opened` receives each session's constraint.
 */
export function replicatedDb(opened: string[] = []): D1Database {
  const primary = env.DB;
  return {
    prepare: (query: string) => primary.prepare(query),
    batch: (statements: D1PreparedStatement[]) => primary.batch(statements),
    exec: (query: string) => primary.exec(query),
    dump: () => primary.dump(),
    withSession: (constraint?: string) => {
      opened.push(constraint ?? 'first-unconstrained');
      return constraint === 'first-primary' ? primary.withSession(constraint) : replicaSession();
    },
  } as D1Database;
}

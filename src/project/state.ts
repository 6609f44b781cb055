// What the area modules (surveys, uploads, analysis, data health, ...) work with: the project object
// hands each RPC body this view of itself (src/project/project-object.ts). Kept apart from the object
// so the modules the object imports never import it back.
import type { Env } from '../env';
import type { Idempotency } from './idempotency';
import type { JobRow, ProjectDb } from './jobs';

export interface ProjectState {
  env: Env;
  db: ProjectDb;
  /** The object's SQLite, for hot loops where building each statement through drizzle costs more than running it. */
  sql: SqlStorage;
  projectId: string;
  idempotency: Idempotency;
  /** Sends the changed jobs (and, for steps, their survey) to every open stream. */
  notify(rows: (JobRow | null | undefined)[]): void;
  /** Rings the object's alarm no later than `at` (a lease that lapses then). */
  wake(at: number): Promise<void>;
  /** Rings the alarm as soon as the current call is done (queued deletions). */
  wakeSoon(): void;
}

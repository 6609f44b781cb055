// Idempotency keys (spec 4.7, 4.8): the first answer to an (operation, key) is kept and returned to
// every repeat, also to concurrent repeats: while the first is running, repeats wait for it.
import { and, eq } from 'drizzle-orm';
import { ApiError } from '../lib/errors';
import { nowIso } from '../lib/ids';
import type { ProjectDb } from './jobs';
import { idempotencyKeys } from './schema';

export class Idempotency {
  private readonly inFlight = new Map<string, Promise<unknown>>();

  constructor(private readonly db: ProjectDb) {}

  /**
   * Runs `work` once per (operation, key); repeats with the same request get the same answer, a
   * repeat with another request body is 409 `conflict`. Failures are not kept: a retry runs again.
   */
  async run<T>(operation: string, key: string, request: unknown, work: () => Promise<T> | T): Promise<T> {
    return (await this.runOnce(operation, key, request, work)).answer;
  }

  /** As `run`, also saying whether this call was a repeat (so side records are written once). */
  async runOnce<T>(operation: string, key: string, request: unknown, work: () => Promise<T> | T): Promise<{ answer: T; replayed: boolean }> {
    const requestHash = JSON.stringify(request ?? null);
    const slot = `${operation}\u0000${key}`;
    // Wait out every attempt in flight: after a failed one, only the first waiter runs again.
    for (let pending = this.inFlight.get(slot); pending; pending = this.inFlight.get(slot)) {
      await pending.catch(() => undefined);
    }
    const stored = this.db.select().from(idempotencyKeys).where(and(eq(idempotencyKeys.operation, operation), eq(idempotencyKeys.key, key))).get();
    if (stored) {
      if (stored.requestHash !== requestHash) throw new ApiError('conflict', 'This Idempotency-Key was used with a different request.');
      return { answer: (stored.answer as { value: T }).value, replayed: true };
    }
    const attempt = (async () => {
      const answer = await work();
      this.db.insert(idempotencyKeys).values({ operation, key, requestHash, answer: { value: answer ?? null }, createdAt: nowIso() }).onConflictDoNothing().run();
      return answer;
    })();
    this.inFlight.set(slot, attempt);
    try {
      return { answer: await attempt, replayed: false };
    } finally {
      if (this.inFlight.get(slot) === attempt) this.inFlight.delete(slot);
    }
  }

  /** The operation and key that produced an answer naming `field` = `value` (data-health resolve). */
  findKey(value: string): { operation: string; key: string } | undefined {
    const row = this.db.select({ operation: idempotencyKeys.operation, key: idempotencyKeys.key }).from(idempotencyKeys).where(eq(idempotencyKeys.key, value)).get();
    return row;
  }
}
